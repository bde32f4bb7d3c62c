import { and, eq, gte } from "drizzle-orm";
import { lastUtcDays } from "~/time/day";
import type { Db } from "~/db/client.server";
import { usageDaily } from "~/db/schema";

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
