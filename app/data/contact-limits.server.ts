import { clientAddress } from "~/auth/request.server";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { withDeadline } from "~/deadline.server";
import { hitRateLimit } from "./rate-limits.server";

/**
 * Who may send how many contact messages (security review M-5, ADR 048).
 *
 * A signed-in sender whose address is verified is limited per account only:
 * the account is the cost an abuser pays, so such senders are never charged
 * to, nor blocked by, the allowance that visitors share. Everyone else (a
 * visitor, or an account whose address is not verified, which proves no more
 * than a typed one) is limited per client address (behind a trusted proxy),
 * per email address, and by the visitors' shared allowance: an hourly total
 * plus a per-minute burst of a tenth of it, so one client sending from many
 * addresses cannot take the whole hour's allowance in a second.
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

export type ContactSender = { kind: "verified-account"; uid: string } | { kind: "unproven"; email: string };

/** Most specific first, so that a refusal stops before the shared allowance is used. */
export function contactLimitRules(request: Request, sender: ContactSender): WindowedRule[] {
  const limits = getConfig().inboxLimits;
  if (sender.kind === "verified-account") {
    return [{ key: `contact:uid:${sender.uid}`, limit: limits.contactPerEmail, windowSeconds: HOUR }];
  }
  const rules: WindowedRule[] = [];
  const address = clientAddress(request);
  if (address) rules.push({ key: `contact:ip:${address}`, limit: limits.contactPerAddress, windowSeconds: HOUR });
  rules.push({ key: `contact:email:${sender.email}`, limit: limits.contactPerEmail, windowSeconds: HOUR });
  // The burst is checked before the hour: a message refused for the burst does not spend the hour.
  rules.push({ key: VISITORS_BURST_KEY, limit: visitorsBurstLimit(limits.contactOverall), windowSeconds: MINUTE });
  rules.push({ key: VISITORS_HOURLY_KEY, limit: limits.contactOverall, windowSeconds: HOUR });
  return rules;
}

/** A tenth of the hourly allowance a minute, and at least one. */
export function visitorsBurstLimit(hourly: number): number {
  return Math.max(1, Math.floor(hourly / 10));
}

/**
 * Counts the request against each rule in turn and stops at the first one
 * exceeded: a refused request does not also use up the budgets after it.
 */
export async function checkWindowedLimits(db: Db, rules: WindowedRule[]): Promise<{ retryAfterSeconds: number } | undefined> {
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
