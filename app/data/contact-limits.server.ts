import { clientAddress } from "~/auth/request.server";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { withDeadline } from "~/deadline.server";
import { hitRateLimit } from "./rate-limits.server";

/**
 * Who may send how many contact messages (docs/decisions/048, 076).
 *
 * A signed-in sender whose address is verified is limited per account only:
 * the account is the cost an abuser pays, so such senders are never charged
 * to, nor blocked by, any shared allowance. A signed-in sender whose address
 * is not verified is limited per account and by an allowance that only such
 * accounts share. A visitor (signed out) is limited per client address (behind
 * a trusted proxy), per email address, and by the visitors' shared allowance;
 * a visitor's message counts only once it carries valid work
 * (contact-work.server.ts), so a flood without it spends none of that.
 * Each shared allowance is an hourly total plus a per-minute burst of a tenth
 * of it, so one client cannot take the whole hour's allowance in a second.
 */
export interface WindowedRule {
  key: string;
  limit: number;
  windowSeconds: number;
}

const MINUTE = 60;
const HOUR = 60 * 60;

/** The shared keys (rate_limits rows) of the visitors' allowance. */
export const VISITORS_HOURLY_KEY = "contact:visitors";
export const VISITORS_BURST_KEY = "contact:visitors:minute";
/** The shared keys of the allowance of signed-in accounts whose address is not verified. */
export const UNVERIFIED_HOURLY_KEY = "contact:unverified";
export const UNVERIFIED_BURST_KEY = "contact:unverified:minute";

export type ContactSender =
  | { kind: "verified-account"; uid: string }
  | { kind: "unverified-account"; uid: string }
  | { kind: "visitor"; email: string };

/** Most specific first, so that a refusal stops before the shared allowance is used. */
export function contactLimitRules(request: Request, sender: ContactSender): WindowedRule[] {
  const limits = getConfig().inboxLimits;
  if (sender.kind === "verified-account") {
    return [{ key: `contact:uid:${sender.uid}`, limit: limits.contactPerEmail, windowSeconds: HOUR }];
  }
  if (sender.kind === "unverified-account") {
    return [
      { key: `contact:uid:${sender.uid}`, limit: limits.contactPerEmail, windowSeconds: HOUR },
      ...sharedAllowance(UNVERIFIED_BURST_KEY, UNVERIFIED_HOURLY_KEY, limits.contactOverall),
    ];
  }
  const rules: WindowedRule[] = [];
  const address = clientAddress(request);
  if (address) rules.push({ key: `contact:ip:${address}`, limit: limits.contactPerAddress, windowSeconds: HOUR });
  rules.push({ key: `contact:email:${sender.email}`, limit: limits.contactPerEmail, windowSeconds: HOUR });
  rules.push(...sharedAllowance(VISITORS_BURST_KEY, VISITORS_HOURLY_KEY, limits.contactOverall));
  return rules;
}

/** The burst is checked before the hour: a message refused for the burst does not spend the hour. */
function sharedAllowance(burstKey: string, hourlyKey: string, hourly: number): WindowedRule[] {
  return [
    { key: burstKey, limit: burstLimit(hourly), windowSeconds: MINUTE },
    { key: hourlyKey, limit: hourly, windowSeconds: HOUR },
  ];
}

/** A tenth of the hourly allowance a minute, and at least one. */
export function burstLimit(hourly: number): number {
  return Math.max(1, Math.floor(hourly / 10));
}

/**
 * Counts the request against each rule in turn and stops at the first one
 * exceeded: a refused request does not also use up the budgets after it.
 */
export async function checkWindowedLimits(
  db: Db,
  rules: WindowedRule[],
): Promise<{ retryAfterSeconds: number } | undefined> {
  for (const rule of rules) {
    const result = await withDeadline(
      "postgres",
      getConfig().backendTimeoutMs,
      hitRateLimit(db, rule.key, rule.limit, rule.windowSeconds),
    );
    if (!result.allowed) return { retryAfterSeconds: result.retryAfterSeconds };
  }
  return undefined;
}
