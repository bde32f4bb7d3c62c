import { clientAddress } from "~/auth/request.server";
import type { SignedIn } from "~/auth/session.server";
import { getConfig } from "~/config.server";
import { hitRateLimits, secondsInWords } from "~/data/rate-limits.server";
import type { Db } from "~/db/client.server";
import { withDeadline } from "~/deadline.server";

/**
 * The chat endpoint's abuse limit, per minute: per account, per email address
 * (an address that signs up again gets a new account) and per client address
 * where a trusted proxy tells it. Counted in PostgreSQL, so it holds across
 * server instances. The daily quota (app/data/quotas.server.ts) is separate:
 * it is what a plan allows, this stops a script from flooding the model.
 */
export async function checkChatRateLimit(
  db: Db,
  session: SignedIn,
  request: Request,
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number; message: string }> {
  const { chatLimits, backendTimeoutMs } = getConfig();
  const rules = [{ key: `chat:uid:${session.user.uid}`, limit: chatLimits.perAccount }];
  if (session.user.email)
    rules.push({ key: `chat:email:${session.user.email.toLowerCase()}`, limit: chatLimits.perAccount });
  const address = clientAddress(request);
  if (address) rules.push({ key: `chat:ip:${address}`, limit: chatLimits.perAddress });
  const result = await withDeadline("postgres", backendTimeoutMs, hitRateLimits(db, rules, 60));
  if (result.allowed) return { allowed: true };
  return {
    allowed: false,
    retryAfterSeconds: result.retryAfterSeconds,
    message: tooFastMessage(result.retryAfterSeconds),
  };
}

export function tooFastMessage(seconds: number): string {
  return `You're sending messages faster than allowed. Please wait ${secondsInWords(seconds)} and send again.`;
}
