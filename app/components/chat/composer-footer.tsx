import type { ReactNode } from "react";
import { budgetLeftText, budgetSpentMessage, fallbackText, type BudgetView } from "~/budgets/budget-text";
import { formatResetTime, quotaExhaustedMessage, remainingText } from "~/budgets/quota-text";
import type { QuotaView } from "./chat-view-types";

/**
 * Under the message box: a message given back after a reload (app/components/chat/use-unsent-restore.ts), and what is left to send.
 * A limit that stops sending is said once: while the server's refusal is shown above (`refusedByLimit`) the page's
 * counts, read before that refusal, are stale and stay hidden.
 */
export function ComposerFooter({
  restoredNotice,
  quota,
  timeZone,
  refusedByLimit,
}: {
  restoredNotice: boolean;
  quota: QuotaView;
  timeZone: string | undefined;
  refusedByLimit: boolean;
}) {
  return (
    <>
      {restoredNotice ? (
        <span role="status">Your last message wasn't confirmed as sent, so it's back in the box.</span>
      ) : null}
      {refusedByLimit ? null : <QuotaLine quota={quota} timeZone={timeZone} />}
    </>
  );
}

function QuotaLine({ quota, timeZone }: { quota: QuotaView; timeZone: string | undefined }) {
  const upgrade = quota.upgradeUrl ? (
    <>
      {" "}
      <a href={quota.upgradeUrl}>See plans</a>
    </>
  ) : null;
  const budget = quota.budget ? <BudgetLine budget={quota.budget} timeZone={timeZone} upgrade={upgrade} /> : null;
  // A spent budget with no fallback stops sending: its line alone, not beside a count of messages that can't be sent.
  const budgetBlocks = quota.budget?.spent === true && !quota.budget.fallback;
  if (quota.remaining === null || quota.limit === null || budgetBlocks) return budget;
  const resetsAt = new Date(quota.resetsAt);
  if (quota.remaining === 0) {
    return (
      <span className="quota exhausted" role="status">
        {quotaExhaustedMessage(quota.limit, resetsAt, timeZone)}
        {upgrade}
      </span>
    );
  }
  return (
    <>
      <span className="quota">
        {remainingText(quota.remaining)} · resets at {formatResetTime(resetsAt, timeZone)}
      </span>
      {budget}
    </>
  );
}

/** What is left of the tightest budget; once spent, what happens instead (docs/decisions/072). */
function BudgetLine({
  budget,
  timeZone,
  upgrade,
}: {
  budget: BudgetView;
  timeZone: string | undefined;
  upgrade: ReactNode;
}) {
  if (budget.spent) {
    return (
      <span className={`quota budget ${budget.fallback ? "nearly" : "exhausted"}`} role="status">
        {budget.fallback ? fallbackText(budget, timeZone) : budgetSpentMessage(budget, timeZone)}
        {upgrade}
      </span>
    );
  }
  return (
    <span className={`quota budget${budget.nearlySpent ? " nearly" : ""}`}>
      {budgetLeftText(budget)}
      {budget.nearlySpent ? upgrade : null}
    </span>
  );
}
