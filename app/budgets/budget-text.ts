import { formatResetTime } from "./quota-text";

/**
 * How a budget reads (docs/decisions/072), on the server (429 answers) and in
 * the composer and dashboard. No server imports: the chat page bundles this.
 */

export type BudgetKind = "dailyTokens" | "monthlyTokens" | "dailyMicroUsd" | "monthlyMicroUsd";

export interface BudgetLineView {
  kind: BudgetKind;
  limit: number;
  left: number;
  resetsAt: string;
}

/** The tightest budget, for the composer. */
export interface BudgetView extends BudgetLineView {
  spent: boolean;
  nearlySpent: boolean;
  /** Once spent, replies come from this model (its name). */
  fallback?: string;
}

export function toBudgetView(
  status: { lines: BudgetLineView[]; spent: boolean; nearlySpent: boolean },
  fallback?: string,
): BudgetView | null {
  const [tightest] = status.lines;
  if (!tightest) return null;
  const { kind, limit, left, resetsAt } = tightest;
  return {
    kind,
    limit,
    left,
    resetsAt,
    spent: status.spent,
    nearlySpent: status.nearlySpent,
    ...(fallback ? { fallback } : {}),
  };
}

export function isMoney(kind: BudgetKind): boolean {
  return kind.endsWith("MicroUsd");
}

/** "$0.42", "$12.50", "$0.0031" (small amounts keep their digits). */
export function formatMicroUsd(micro: number): string {
  const dollars = micro / 1_000_000;
  if (dollars !== 0 && Math.abs(dollars) < 0.01) return `$${dollars.toPrecision(2)}`;
  return `$${dollars.toFixed(2)}`;
}

export function formatAmount(kind: BudgetKind, amount: number): string {
  if (isMoney(kind)) return formatMicroUsd(amount);
  return `${amount.toLocaleString("en-US")} token${amount === 1 ? "" : "s"}`;
}

function period(kind: BudgetKind): { now: string; whose: string } {
  return kind.startsWith("daily") ? { now: "today", whose: "today's" } : { now: "this month", whose: "this month's" };
}

/** When a budget starts again: "00:00 UTC" for a day, "1 Dec" for a month. */
export function formatReset(kind: BudgetKind, resetsAt: string, timeZone?: string): string {
  const at = new Date(resetsAt);
  if (kind.startsWith("daily")) return `at ${formatResetTime(at, timeZone)}`;
  return `on ${new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" }).format(at)}`;
}

/** "12,340 tokens left today", "$0.42 left this month". */
export function budgetLeftText(line: BudgetLineView): string {
  return `${formatAmount(line.kind, line.left)} left ${period(line.kind).now}`;
}

/** The 429 answer, and the composer once a budget is spent with no fallback. */
export function budgetSpentMessage(line: BudgetLineView, timeZone?: string): string {
  return `You've used ${period(line.kind).whose} budget of ${formatAmount(line.kind, line.limit)}. It resets ${formatReset(line.kind, line.resetsAt, timeZone)}.`;
}

/** Some budget is left, but not enough for this message's prompt and a useful reply. */
export function budgetTooSmallMessage(line: BudgetLineView, timeZone?: string): string {
  return `What's left of ${period(line.kind).whose} budget (${formatAmount(line.kind, line.left)}) isn't enough for this message and its reply. A new chat with less history needs less; the budget resets ${formatReset(line.kind, line.resetsAt, timeZone)}.`;
}

/** The composer once a budget is spent and a fallback model answers instead. */
export function fallbackText(view: BudgetView, timeZone?: string): string {
  return `${capitalise(period(view.kind).whose)} budget is spent: replies come from ${view.fallback} until it resets ${formatReset(view.kind, view.resetsAt, timeZone)}.`;
}

function capitalise(text: string) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
