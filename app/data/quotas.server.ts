import { and, eq, sql } from "drizzle-orm";
import { nextUtcMidnight, utcDay } from "~/chat/day";
import { lookupRole, roleKey, type DailyLimit } from "~/chat/role-settings";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { usageDaily } from "~/db/schema";

/**
 * Daily message quotas, counted in PostgreSQL (usage_daily.messages) so that
 * every server instance shares one count. A send reserves its message with
 * one guarded upsert, which PostgreSQL applies atomically: concurrent sends
 * can never take the count past the limit. A reply that fails gives its
 * reservation back.
 */

/** A role as a string, or a signed-in session (so an unverified "admin" is not treated as one). */
export type RoleInput = string | { role: string; isAdmin: boolean };

export function dailyLimitFor(role: RoleInput): DailyLimit {
  const key = typeof role === "string" ? roleKey({ role, isAdmin: role === "admin" }) : roleKey(role);
  const limit = lookupRole(getConfig().dailyLimits, key);
  return limit === undefined ? null : limit;
}

export interface QuotaStatus {
  used: number;
  /** null: unlimited. */
  limit: DailyLimit;
  /** null: unlimited. */
  remaining: number | null;
  resetsAt: Date;
}

export interface Reservation extends QuotaStatus {
  allowed: boolean;
  /** The UTC day the message was counted on (a refund goes back to it). */
  day: string;
}

export async function reserveMessage(db: Db, uid: string, limit: DailyLimit, now = new Date()): Promise<Reservation> {
  const day = utcDay(now);
  const resetsAt = nextUtcMidnight(now);
  if (limit !== null && limit <= 0) {
    return { allowed: false, day, used: 0, limit, remaining: 0, resetsAt };
  }
  const guard = limit === null ? sql`` : sql`where ${usageDaily.messages} < ${limit}`;
  const result = await db.execute<{ messages: number }>(sql`
    insert into ${usageDaily} (uid, day, messages) values (${uid}, ${day}, 1)
    on conflict (uid, day) do update set messages = ${usageDaily.messages} + 1 ${guard}
    returning messages
  `);
  const counted = result.rows[0];
  if (!counted) {
    // The guard refused: the limit is reached.
    return { allowed: false, day, used: limit ?? 0, limit, remaining: 0, resetsAt };
  }
  const used = Number(counted.messages);
  return { allowed: true, day, used, limit, remaining: limit === null ? null : Math.max(0, limit - used), resetsAt };
}

/** Gives back a reservation whose reply failed. */
export async function refundMessage(db: Db, uid: string, day: string): Promise<void> {
  await db
    .update(usageDaily)
    .set({ messages: sql`greatest(${usageDaily.messages} - 1, 0)` })
    .where(and(eq(usageDaily.uid, uid), eq(usageDaily.day, day)));
}

/** Today's count against the role's limit, e.g. for the composer and the dashboard. */
export async function getQuotaStatus(db: Db, uid: string, role: RoleInput, now = new Date()): Promise<QuotaStatus> {
  const limit = dailyLimitFor(role);
  const [row] = await db
    .select({ messages: usageDaily.messages })
    .from(usageDaily)
    .where(and(eq(usageDaily.uid, uid), eq(usageDaily.day, utcDay(now))))
    .limit(1);
  const used = row?.messages ?? 0;
  return {
    used,
    limit,
    remaining: limit === null ? null : Math.max(0, limit - used),
    resetsAt: nextUtcMidnight(now),
  };
}
