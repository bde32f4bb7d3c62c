import { json } from "@remix-run/node";

/**
 * Errors in OpenAI's shape (docs/decisions/099), so that an OpenAI client
 * raises its own error classes with our message: `{"error": {"message",
 * "type", "param", "code"}}`, with the status OpenAI uses for the case.
 */

export type OpenAIErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "insufficient_quota"
  | "server_error";

const TYPES: Record<number, OpenAIErrorType> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  405: "invalid_request_error",
  413: "invalid_request_error",
  429: "rate_limit_error",
};

const PRIVATE = { "Cache-Control": "no-store" };

export function openAIError(
  status: number,
  message: string,
  {
    type = TYPES[status] ?? "server_error",
    param = null,
    code = null,
    headers,
  }: { type?: OpenAIErrorType; param?: string | null; code?: string | null; headers?: HeadersInit } = {},
): Response {
  // Remix's json(): under remix-serve the global Response is Remix's own, which has no Response.json.
  const merged = new Headers(headers);
  merged.set("Cache-Control", PRIVATE["Cache-Control"]);
  return json({ error: { message, type, param, code } }, { status, headers: merged });
}

/** A JSON answer of the API (never cached: it is one account's). */
export function openAIJson(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Cache-Control", PRIVATE["Cache-Control"]);
  return json(body, { ...init, headers });
}

export const methodNotAllowed = (allowed: string) =>
  openAIError(405, `Use ${allowed} for this endpoint.`, { headers: { Allow: allowed } });
