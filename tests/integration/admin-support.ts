import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { APP_ORIGIN, appRequest } from "../support/app-env";

/** Helpers for the admin inbox and role tests: call a loader or action in-process. */

type Handler = (args: LoaderFunctionArgs & ActionFunctionArgs) => Promise<unknown> | unknown;

/** The Response a loader or action returned or threw. */
export async function respond(
  handler: Handler,
  request: Request,
  params: Record<string, string> = {},
): Promise<Response> {
  try {
    const result = await handler({ request, params, context: {} });
    if (result instanceof Response) return result;
    throw new Error("expected a Response");
  } catch (error) {
    if (error instanceof Response) return error;
    throw error;
  }
}

export function get(path: string, cookie?: string, headers?: Record<string, string>) {
  return appRequest(path, { cookie, headers });
}

/** A form POST as a Remix fetcher sends it (same origin, `_data`, URL-encoded). */
export function postForm(
  path: string,
  fields: Record<string, string | string[]>,
  { cookie, headers }: { cookie?: string; headers?: Record<string, string> } = {},
) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
  }
  return appRequest(path, {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body,
  });
}

export function postJson(
  path: string,
  data: unknown,
  { cookie, headers }: { cookie?: string; headers?: Record<string, string> } = {},
) {
  return appRequest(path, {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(data),
  });
}

export function uniqueText(label: string) {
  return `${label}-${Math.random().toString(36).slice(2, 10)}`;
}
