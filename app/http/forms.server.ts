import { json } from "@remix-run/node";
import type { z } from "zod";
import { safeRedirect } from "~/auth/redirect";
import { BODY_LIMITS, bodyTooLarge, parseForm, readCapped } from "./body-limit.server";

/**
 * What every form action shares: reading a bounded body (form or JSON) as
 * plain fields, field errors from a schema, answering in JSON or, for a plain
 * form post without JavaScript, with a redirect back, and the 429 for a limit.
 */

/** A plain Response: the loose body type must not widen callers' action data. */
export function problem(status: number, body: Record<string, unknown>, headers?: HeadersInit): Response {
  return json(body, { status, headers: { "Cache-Control": "no-store", ...headers } });
}

export type BodyResult = { fields: Record<string, unknown> } | { refusal: Response };

/** A form or a JSON object, read up to `max` bytes (app/http/body-limit.server.ts), as plain fields. */
export async function readBody(request: Request, max: number = BODY_LIMITS.message): Promise<BodyResult> {
  const bytes = await readCapped(request, max);
  if (!bytes) return { refusal: bodyTooLarge(max) };
  const type = request.headers.get("Content-Type") ?? "";
  if (type.includes("application/json")) {
    try {
      const body: unknown = JSON.parse(new TextDecoder().decode(bytes));
      if (!body || typeof body !== "object" || Array.isArray(body)) throw new Error("not an object");
      return { fields: body as Record<string, unknown> };
    } catch {
      return { refusal: problem(400, { error: "The request body is not a valid JSON object." }) };
    }
  }
  const form = await parseForm(bytes, type);
  if (!form) return { refusal: problem(400, { error: "The request body could not be read as a form." }) };
  const fields: Record<string, unknown> = {};
  for (const [name, value] of form) {
    if (typeof value !== "string") continue;
    // A repeated name (checkboxes) becomes a list.
    const seen = fields[name];
    fields[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return { fields };
}

/** Field errors keyed by field name, the first message of each. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    errors[key] ??= issue.message;
  }
  return errors;
}

/**
 * A browser's own form post (no JavaScript): answering JSON would leave the
 * visitor on a bare JSON page, so it goes back to the page it came from.
 * Remix's fetchers send `_data` and no `Sec-Fetch-Mode: navigate`.
 */
export function isDocumentSubmission(request: Request): boolean {
  if (new URL(request.url).searchParams.has("_data")) return false;
  if (request.headers.get("Sec-Fetch-Mode") === "navigate") return true;
  return (request.headers.get("Accept") ?? "").includes("text/html");
}

/** Back to the page the form was on, with `param=outcome` for it to show, at its anchor if any. */
export function backToReferrer(request: Request, param: string, outcome: string, anchor?: string): Response {
  let back = "/";
  const referrer = request.headers.get("Referer");
  if (referrer) {
    try {
      const url = new URL(referrer);
      if (url.host === new URL(request.url).host || url.host === request.headers.get("Host")) {
        url.searchParams.set(param, outcome);
        back = safeRedirect(`${url.pathname}${url.search}`);
      }
    } catch {
      // A malformed Referer: go home.
    }
  }
  return new Response(null, {
    status: 303,
    headers: { Location: anchor ? `${back}#${anchor}` : back, "Cache-Control": "no-store" },
  });
}

export function tooMany(what: string, retryAfterSeconds: number): Response {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  const wait = minutes === 1 ? "a minute" : `${minutes} minutes`;
  return problem(
    429,
    { error: `You've sent a lot of ${what} in a short time. Please try again in ${wait}.`, retryAfterSeconds },
    { "Retry-After": String(retryAfterSeconds) },
  );
}
