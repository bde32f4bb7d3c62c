import { json } from "@remix-run/node";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { hitRateLimit, secondsInWords } from "./rate-limits.server";

/**
 * Running a prompt tool starts a new conversation (and the tool's system
 * prompt), so it is limited per account: without a limit one client made
 * 100 conversations in 1.3 s (ADR 048). The count is kept in
 * PostgreSQL, shared by every server instance.
 */

const MINUTE = 60;

export function toolRunKey(uid: string): string {
  return `tool-run:uid:${uid}`;
}

/** Undefined when allowed; otherwise the 429 answer the tool page shows above its form. */
export async function refuseToolRunOverLimit(db: Db, uid: string, values: string[]) {
  const result = await hitRateLimit(db, toolRunKey(uid), getConfig().toolRunRateLimitPerMinute, MINUTE);
  if (result.allowed) return undefined;
  return json(
    {
      values,
      fieldErrors: {
        form: `You've started a lot of tool chats in a short time. Please wait ${secondsInWords(result.retryAfterSeconds)} and try again.`,
      },
    },
    { status: 429, headers: { "Cache-Control": "no-store", "Retry-After": String(result.retryAfterSeconds) } },
  );
}
