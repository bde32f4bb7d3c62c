import { sql } from "drizzle-orm";
import { nextUtcMidnight, utcDay } from "~/time/day";
import { lookupRole } from "~/settings/role-settings";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { quotaReservations, usageDaily } from "~/db/schema";
import {
  costMicroUsd,
  FREE,
  hasBudget,
  NO_BUDGETS,
  type BudgetLimits,
  type ModelPrice,
} from "~/settings/budget-settings";
import { AccountDeletedError, type Tx } from "./account-lock.server";
import { RESERVATION_LEASE, roleKeyOf, type RoleInput } from "./quotas.server";

/**
 * Token and money budgets (docs/decisions/072), exact across instances.
 *
 * A reply HOLDS budget before the model is asked: its prompt (estimated) plus
 * the longest reply it may write, which is capped (max_tokens) by what is
 * left. The hold sits on the message's quota claim (quota_reservations, one
 * row per message being answered), so it ends exactly when the claim does:
 * storing the exchange replaces it with the real usage (usage_daily), a
 * refund drops it, and a reply whose server died is dropped after the lease.
 *
 * Spent = settled usage (usage_daily, this UTC day / calendar month) + what
 * other replies in flight hold. Holds are taken under an exclusive per-user
 * advisory lock, so two instances can never both take the last of a budget:
 * spend exceeds a budget by at most what one reply's real usage exceeds its
 * hold (its prompt estimate's error; its output never exceeds the cap).
 */

/** A reply shorter than this is not worth starting: the budget counts as spent. */
export const MIN_REPLY_TOKENS = 64;

/** Below this share of a budget left, the composer warns. */
export const NEARLY_SPENT_SHARE = 0.2;

import type { BudgetKind } from "~/budgets/budget-text";
export type { BudgetKind };
export const BUDGET_KINDS: readonly BudgetKind[] = ["dailyTokens", "monthlyTokens", "dailyMicroUsd", "monthlyMicroUsd"];

export function budgetLimitsFor(role: RoleInput): BudgetLimits {
  const key = roleKeyOf(role);
  const budgets = getConfig().budgets;
  const limits = { ...NO_BUDGETS };
  for (const kind of BUDGET_KINDS) limits[kind] = lookupRole(budgets[kind], key) ?? null;
  return limits;
}

export function fallbackModelFor(role: RoleInput): string | undefined {
  const key = roleKeyOf(role);
  return lookupRole(getConfig().budgets.fallbackModels, key);
}

export function priceOf(modelId: string): ModelPrice {
  return getConfig().modelPrices.get(modelId) ?? FREE;
}

export interface Spend {
  dailyTokens: number;
  monthlyTokens: number;
  dailyMicroUsd: number;
  monthlyMicroUsd: number;
}

export interface BudgetLine {
  kind: BudgetKind;
  limit: number;
  spent: number;
  left: number;
  resetsAt: string;
}

/** Each budget the role has, with what is spent of it (settled and held); the tightest first. */
export interface BudgetStatus {
  lines: BudgetLine[];
  /** Some budget is used up (a reply then falls back or is refused). */
  spent: boolean;
  /** Some budget has less than NEARLY_SPENT_SHARE left. */
  nearlySpent: boolean;
}

export function budgetStatus(limits: BudgetLimits, spend: Spend, now = new Date()): BudgetStatus {
  const lines: BudgetLine[] = [];
  for (const kind of BUDGET_KINDS) {
    const limit = limits[kind];
    if (limit === null) continue;
    const spent = spend[kind];
    lines.push({ kind, limit, spent, left: Math.max(0, limit - spent), resetsAt: resetOf(kind, now).toISOString() });
  }
  lines.sort((a, b) => share(a) - share(b));
  return {
    lines,
    spent: lines.some((line) => line.left <= 0),
    nearlySpent: lines.some((line) => share(line) < NEARLY_SPENT_SHARE),
  };
}

function share(line: BudgetLine) {
  return line.limit === 0 ? 0 : line.left / line.limit;
}

function resetOf(kind: BudgetKind, now: Date): Date {
  return kind.startsWith("daily")
    ? nextUtcMidnight(now)
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

function monthStart(now: Date): string {
  return `${utcDay(now).slice(0, 8)}01`;
}

/** Settled usage this day and month plus what replies in flight hold (except `exceptMessageId`'s). */
async function readSpend(tx: Tx | Db, uid: string, now: Date, exceptMessageId?: string): Promise<Spend> {
  const day = utcDay(now);
  const month = monthStart(now);
  const except = exceptMessageId ? sql`and message_id <> ${exceptMessageId}::uuid` : sql``;
  const result = await tx.execute<{ dt: string; mt: string; du: string; mu: string }>(sql`
    select
      coalesce(sum(s.tokens) filter (where s.day = ${day}::date), 0)::bigint as dt,
      coalesce(sum(s.tokens), 0)::bigint as mt,
      coalesce(sum(s.usd) filter (where s.day = ${day}::date), 0)::bigint as du,
      coalesce(sum(s.usd), 0)::bigint as mu
    from (
      select day, input_tokens + output_tokens as tokens, cost_micro_usd as usd
        from ${usageDaily} where uid = ${uid} and day >= ${month}::date and day <= ${day}::date
      union all
      select day, held_tokens, held_micro_usd
        from ${quotaReservations}
        where uid = ${uid} and day >= ${month}::date and reserved_at >= now() - ${RESERVATION_LEASE}::interval ${except}
    ) s
  `);
  const row = result.rows[0];
  return {
    dailyTokens: Number(row.dt),
    monthlyTokens: Number(row.mt),
    dailyMicroUsd: Number(row.du),
    monthlyMicroUsd: Number(row.mu),
  };
}

/** The role's budgets now, for the composer and the dashboard; null when the role has none. */
export async function getBudgetStatus(
  db: Db,
  uid: string,
  role: RoleInput,
  now = new Date(),
): Promise<BudgetStatus | null> {
  const limits = budgetLimitsFor(role);
  if (!hasBudget(limits)) return null;
  return budgetStatus(limits, await readSpend(db, uid, now), now);
}

export interface HoldRequest {
  uid: string;
  /** The user's message: its quota claim carries the hold. */
  messageId: string;
  limits: BudgetLimits;
  price: ModelPrice;
  promptTokens: number;
  /** The longest reply wanted (LLM_MAX_OUTPUT_TOKENS). */
  maxOutputTokens: number;
  now?: Date;
}

export type Hold =
  | { ok: true; maxOutputTokens: number; heldTokens: number; heldMicroUsd: number; status: BudgetStatus }
  | { ok: false; status: BudgetStatus };

/**
 * Holds budget for one reply, or says it is spent: one call of the
 * nuvara_hold_budget function (migration 0016), so the first token waits one
 * round trip. Under the account's lock (shared) and an exclusive per-user
 * lock it reads what is spent and held, takes the longest reply the tightest
 * budget leaves after the prompt (under MIN_REPLY_TOKENS: spent) and writes
 * the hold on the message's quota claim (reserveMessage made it).
 * Throws AccountDeletedError for a deleted account.
 */
export async function holdBudget(db: Db, request: HoldRequest): Promise<Hold> {
  const now = request.now ?? new Date();
  const { uid, messageId, limits, price, promptTokens } = request;
  const result = await db.execute<{
    deleted: boolean;
    day_tokens: string;
    month_tokens: string;
    day_usd: string;
    month_usd: string;
    output: string;
  }>(sql`
    select * from nuvara_hold_budget(
      ${uid}, ${messageId}::uuid, ${utcDay(now)}::date, ${monthStart(now)}::date, ${RESERVATION_LEASE}::interval,
      ${limits.dailyTokens}::bigint, ${limits.monthlyTokens}::bigint, ${limits.dailyMicroUsd}::bigint, ${limits.monthlyMicroUsd}::bigint,
      ${promptTokens}::bigint, ${request.maxOutputTokens}::bigint, ${price.inputPerMillion}::float8, ${price.outputPerMillion}::float8, ${MIN_REPLY_TOKENS}::bigint
    )
  `);
  const row = result.rows[0];
  if (row.deleted) throw new AccountDeletedError(uid);
  const spend: Spend = {
    dailyTokens: Number(row.day_tokens),
    monthlyTokens: Number(row.month_tokens),
    dailyMicroUsd: Number(row.day_usd),
    monthlyMicroUsd: Number(row.month_usd),
  };
  const output = Number(row.output);
  if (output < MIN_REPLY_TOKENS) return { ok: false, status: budgetStatus(limits, spend, now) };
  const heldTokens = promptTokens + output;
  const heldMicroUsd = costMicroUsd(price, promptTokens, output);
  const held = {
    dailyTokens: spend.dailyTokens + heldTokens,
    monthlyTokens: spend.monthlyTokens + heldTokens,
    dailyMicroUsd: spend.dailyMicroUsd + heldMicroUsd,
    monthlyMicroUsd: spend.monthlyMicroUsd + heldMicroUsd,
  };
  return { ok: true, maxOutputTokens: output, heldTokens, heldMicroUsd, status: budgetStatus(limits, held, now) };
}
