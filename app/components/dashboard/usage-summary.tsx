import { formatBytes } from "~/conversation/attachment-types";
import { formatAmount, type BudgetKind } from "~/budgets/budget-text";
import { LocalTime } from "~/components/time/local-time";
import { formatDuration, formatNumber, plural } from "./format";
import type { DayUsage } from "./usage-chart";

export interface Quota {
  used: number;
  /** null: unlimited. */
  limit: number | null;
  remaining: number | null;
  /** ISO 8601. */
  resetsAt: string;
}

/** Today's messages against the plan's daily quota, and when it resets. */
export function QuotaSummary({ quota, plan, now }: { quota: Quota; plan: string; now: string }) {
  const resetsIn = formatDuration(new Date(quota.resetsAt).getTime() - new Date(now).getTime());
  if (quota.limit === null) {
    return (
      <div className="quota">
        <p className="quota-figure">
          <strong>{plural(quota.used, "message")}</strong> today
        </p>
        <p>Your {plan} plan has no daily limit.</p>
      </div>
    );
  }
  const exhausted = quota.remaining === 0;
  return (
    <div className="quota">
      <p className="quota-figure">
        <strong>{formatNumber(quota.used)}</strong> of {plural(quota.limit, "message")} used today
      </p>
      <meter
        min={0}
        max={quota.limit}
        low={quota.limit * 0.75}
        high={quota.limit * 0.9}
        optimum={0}
        value={Math.min(quota.used, quota.limit)}
        aria-label="Messages used today"
      >
        {formatNumber(quota.used)} of {formatNumber(quota.limit)}
      </meter>
      <p className={exhausted ? "form-error" : undefined}>
        {exhausted
          ? `You've used all of today's messages on the ${plan} plan.`
          : `${plural(quota.remaining ?? 0, "message")} left today on the ${plan} plan.`}{" "}
        The count resets at <LocalTime value={quota.resetsAt} /> (in {resetsIn}).
      </p>
    </div>
  );
}

/** Each card says its period: these are not today's figures like the quota's above. */
function Period() {
  return <span className="stat-period"> in the last 30 days</span>;
}

/** Totals over the charted days. */
export function UsageTotals({ days }: { days: DayUsage[] }) {
  const messages = days.reduce((sum, day) => sum + day.messages, 0);
  const input = days.reduce((sum, day) => sum + day.inputTokens, 0);
  const output = days.reduce((sum, day) => sum + day.outputTokens, 0);
  const active = days.filter((day) => day.messages > 0).length;
  return (
    <dl className="usage-totals" aria-label="Totals, last 30 days">
      <div>
        <dt>
          Messages
          <Period />
        </dt>
        <dd>{formatNumber(messages)}</dd>
      </div>
      <div>
        <dt>
          Tokens
          <Period />
        </dt>
        <dd>{formatNumber(input + output)}</dd>
      </div>
      <div>
        <dt>
          Tokens in / out
          <Period />
        </dt>
        <dd>
          {formatNumber(input)} / {formatNumber(output)}
        </dd>
      </div>
      <div>
        <dt>
          Active days
          <Period />
        </dt>
        <dd>{formatNumber(active)}</dd>
      </div>
    </dl>
  );
}

/** Files attached to messages: storage used against the plan's, and the plan's other file limits. */
export function FileStorage({
  usedBytes,
  storageBytes,
  maxFileBytes,
  perMessage,
}: {
  usedBytes: number;
  storageBytes: number;
  maxFileBytes: number;
  perMessage: number;
}) {
  return (
    <div className="quota file-storage">
      <p className="quota-figure">
        <strong>{formatBytes(usedBytes)}</strong> of {formatBytes(storageBytes)} of file storage used
      </p>
      {storageBytes > 0 ? (
        <meter
          min={0}
          max={storageBytes}
          low={storageBytes * 0.75}
          high={storageBytes * 0.9}
          optimum={0}
          value={Math.min(usedBytes, storageBytes)}
          aria-label="File storage used"
        >
          {formatBytes(usedBytes)} of {formatBytes(storageBytes)}
        </meter>
      ) : null}
      <p>
        {perMessage === 0
          ? "Your plan doesn't include sending files."
          : `Up to ${perMessage} file${perMessage === 1 ? "" : "s"} a message, each at most ${formatBytes(maxFileBytes)}. Deleting a conversation deletes its files.`}
      </p>
    </div>
  );
}

export interface BudgetLineFigures {
  kind: BudgetKind;
  limit: number;
  spent: number;
  left: number;
  resetsAt: string;
}

const BUDGET_NAMES: Record<BudgetKind, string> = {
  dailyTokens: "Tokens today",
  monthlyTokens: "Tokens this month",
  dailyMicroUsd: "Spend today",
  monthlyMicroUsd: "Spend this month",
};

/** Spend against each of the plan's budgets (docs/decisions/072), and what happens once one is spent. */
export function BudgetSummary({
  lines,
  fallback,
  upgradeUrl,
}: {
  lines: BudgetLineFigures[];
  fallback?: string;
  upgradeUrl?: string | null;
}) {
  const spent = lines.some((line) => line.left <= 0);
  return (
    <div className="budgets">
      <h3>Budgets</h3>
      <ul className="budget-lines">
        {lines.map((line) => (
          <li key={line.kind}>
            <p>
              <strong>{BUDGET_NAMES[line.kind]}:</strong> {formatAmount(line.kind, line.spent)} of{" "}
              {formatAmount(line.kind, line.limit)} · resets <LocalTime value={line.resetsAt} />
            </p>
            <meter
              min={0}
              max={line.limit}
              low={line.limit * 0.8}
              high={line.limit * 0.95}
              optimum={0}
              value={Math.min(line.spent, line.limit)}
              aria-label={`${BUDGET_NAMES[line.kind]}: ${formatAmount(line.kind, line.spent)} of ${formatAmount(line.kind, line.limit)}`}
            />
          </li>
        ))}
      </ul>
      <p className={spent && !fallback ? "form-error" : undefined}>
        {spent
          ? fallback
            ? `A budget is spent: your replies come from ${fallback} until it resets.`
            : "A budget is spent: new messages wait until it resets."
          : fallback
            ? `Once a budget is spent, replies come from ${fallback} until it resets.`
            : "Once a budget is spent, new messages wait until it resets."}{" "}
        {upgradeUrl ? <a href={upgradeUrl}>See plans</a> : null}
      </p>
    </div>
  );
}
