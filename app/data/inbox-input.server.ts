import { json } from "@remix-run/node";
import { z } from "zod";
import { safeRedirect } from "~/auth/redirect";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { withDeadline } from "~/deadline.server";
import { BODY_LIMITS, bodyTooLarge, parseForm, readCapped } from "~/http/body-limit.server";
import { deleteInboxMessages, setInboxStatus } from "./inbox.server";
import { hitRateLimit } from "./rate-limits.server";

/**
 * What the inbox's two doors (the contact form and reports) have in common:
 * reading a bounded body (form or JSON), answering in JSON or, for a plain
 * form post without JavaScript, with a redirect back, and the rate limits
 * kept in PostgreSQL so that every server instance shares them.
 */

/** Far above any valid message (5,000 characters of 4-byte text is 20 KB). */
export const MAX_INBOX_BODY_BYTES = BODY_LIMITS.message;

/** A plain Response: the loose body type must not widen callers' action data. */
export function problem(status: number, body: Record<string, unknown>, headers?: HeadersInit): Response {
  return json(body, { status, headers: { "Cache-Control": "no-store", ...headers } });
}

export type BodyResult = { fields: Record<string, unknown> } | { refusal: Response };

/** A form or a JSON object, read up to `max` bytes (app/http/body-limit.server.ts), as plain fields. */
export async function readBody(request: Request, max: number = MAX_INBOX_BODY_BYTES): Promise<BodyResult> {
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
  return new Response(null, { status: 303, headers: { Location: anchor ? `${back}#${anchor}` : back, "Cache-Control": "no-store" } });
}

export interface LimitRule {
  key: string;
  limit: number;
}

const HOUR = 60 * 60;

/**
 * Counts the request against each rule in turn, most specific first, and
 * stops at the first one exceeded: a refused request does not also use up
 * the shared budgets (overall) that others need.
 */
export async function checkHourlyLimits(db: Db, rules: LimitRule[]): Promise<{ retryAfterSeconds: number } | undefined> {
  for (const rule of rules) {
    const result = await withDeadline("postgres", getConfig().backendTimeoutMs, hitRateLimit(db, rule.key, rule.limit, HOUR));
    if (!result.allowed) return { retryAfterSeconds: result.retryAfterSeconds };
  }
  return undefined;
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

// ---- admins acting on messages (list and detail pages) ----------------------

export const INBOX_INTENTS = ["mark-read", "mark-unread", "archive", "unarchive", "delete"] as const;
export type InboxIntent = (typeof INBOX_INTENTS)[number];

/** One bulk action at most on this many messages (a page is 25). */
const MAX_SELECTION = 100;

export const inboxActionSchema = z.object({
  intent: z.enum(INBOX_INTENTS, { error: "Choose what to do with the selected messages." }),
  ids: z.preprocess(
    (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]),
    z
      .array(z.uuid("That message does not exist."))
      .min(1, "Select at least one message first.")
      .max(MAX_SELECTION, `Select at most ${MAX_SELECTION} messages at a time.`),
  ),
  // Deleting cannot be undone: the first request only asks for confirmation.
  confirm: z.literal("yes").optional(),
});

export type InboxAction = z.infer<typeof inboxActionSchema>;

export type InboxActionResult =
  | { ok: true; intent: InboxIntent; count: number; notice: string }
  | { confirmDelete: string[] };

const DONE: Record<InboxIntent, string> = {
  "mark-read": "marked read",
  "mark-unread": "marked unread",
  archive: "archived",
  unarchive: "moved back to the inbox",
  delete: "deleted",
};

const STATUS_FOR = { "mark-read": "read", "mark-unread": "new", archive: "archived", unarchive: "read" } as const;

export async function runInboxAction(db: Db, action: InboxAction): Promise<InboxActionResult> {
  if (action.intent === "delete" && action.confirm !== "yes") return { confirmDelete: action.ids };
  const count =
    action.intent === "delete" ? await deleteInboxMessages(db, action.ids) : await setInboxStatus(db, action.ids, STATUS_FOR[action.intent]);
  const noun = count === 1 ? "1 message" : `${count} messages`;
  return { ok: true, intent: action.intent, count, notice: `${noun} ${DONE[action.intent]}.` };
}
