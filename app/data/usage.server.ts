import { and, eq, gte, sql } from "drizzle-orm";
import { lastUtcDays } from "~/time/day";
import type { Db } from "~/db/client.server";
import { usageDaily } from "~/db/schema";
import { writeForAccount } from "./account-lock.server";

/** Per-user, per-UTC-day usage: messages (the quota's count) and tokens, for the dashboard. */

export interface DailyUsage {
  /** YYYY-MM-DD, UTC. */
  day: string;
  messages: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
}

/** The last `days` UTC days up to today, oldest first, with zeros for days without use. */
export async function getUsageByDay(db: Db, uid: string, days: number, now = new Date()): Promise<DailyUsage[]> {
  const range = lastUtcDays(now, Math.max(1, Math.floor(days)));
  const rows = await db
    .select()
    .from(usageDaily)
    .where(and(eq(usageDaily.uid, uid), gte(usageDaily.day, range[0])));
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return range.map((day) => {
    const row = byDay.get(day);
    return {
      day,
      messages: row?.messages ?? 0,
      inputTokens: Number(row?.inputTokens ?? 0),
      outputTokens: Number(row?.outputTokens ?? 0),
      costMicroUsd: Number(row?.costMicroUsd ?? 0),
    };
  });
}

export interface ExtraUsage {
  uid: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  /** The user's role key, kept with the day's usage like a reply's (empty: the day's role stays). */
  role?: string;
}

/**
 * A model call made for the user besides their replies (a generated title,
 * docs/decisions/086): its tokens and cost join the day's usage, which the
 * dashboard, the budgets and /admin/usage read; it counts no message.
 * Under the account's lock: a deleted account gets no new row (AccountDeletedError).
 */
export async function recordExtraUsage(db: Db, usage: ExtraUsage): Promise<void> {
  await writeForAccount(db, usage.uid, (tx) =>
    tx
      .insert(usageDaily)
      .values({
        uid: usage.uid,
        day: usage.day,
        messages: 0,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        costMicroUsd: usage.costMicroUsd,
        role: usage.role ?? "",
      })
      .onConflictDoUpdate({
        target: [usageDaily.uid, usageDaily.day],
        set: {
          inputTokens: sql`${usageDaily.inputTokens} + excluded.input_tokens`,
          outputTokens: sql`${usageDaily.outputTokens} + excluded.output_tokens`,
          costMicroUsd: sql`${usageDaily.costMicroUsd} + excluded.cost_micro_usd`,
          role: sql`case when excluded.role = '' then ${usageDaily.role} else excluded.role end`,
        },
      }),
  );
}
