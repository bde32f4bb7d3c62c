import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { nextUtcMidnight, utcDay } from "~/chat/day";
import { lookupRole, roleKey, type DailyLimit } from "~/chat/role-settings";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { quotaReservations, usageDaily } from "~/db/schema";

/**
 * Daily message quotas, counted in PostgreSQL (usage_daily.messages) so that
 * every server instance shares one count. A send reserves its message with
 * one guarded upsert, which PostgreSQL applies atomically: concurrent sends
 * can never take the count past the limit. The reservation is also recorded
 * under the user's message id (quota_reservations) until the reply is
 * stored (saveExchange removes it) or fails (refundMessage gives it back), so:
 *   - a Retry of a message whose refund could not be written (the store
 *     failed with the reply) reuses its reservation instead of counting again;
 *   - a reservation left behind by a server that died mid-reply is given back
 *     after RESERVATION_LEASE, the next time that user sends.
 */

/** Far longer than any reply streams; a reservation older than this belonged to a reply that died. */
export const RESERVATION_LEASE = "15 minutes";

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
  uid: string;
  /** The user's message the reservation is for. */
  messageId: string;
}

/**
 * Counts a message against the day's quota unless the limit is reached.
 * `messageId`: the user's message (a Retry of it reuses a reservation still
 * held); without one, a reservation no reply will claim.
 */
export async function reserveMessage(
  db: Db,
  uid: string,
  limit: DailyLimit,
  { messageId = randomUUID(), now = new Date() }: { messageId?: string; now?: Date } = {},
): Promise<Reservation> {
  const day = utcDay(now);
  const resetsAt = nextUtcMidnight(now);
  const base = { day, uid, messageId, limit, resetsAt };
  if (limit !== null && limit <= 0) return { ...base, allowed: false, used: 0, remaining: 0 };

  let attempt = await tryReserve(db, base);
  if (attempt.stale > 0) {
    // Rare (a server died mid-reply): give those back, then ask again (this
    // message's own reservation, if just taken, is reused rather than counted twice).
    await reclaimStale(db, uid, messageId);
    attempt = await tryReserve(db, base);
  }
  if (attempt.used === null) {
    // The guard refused: the limit is reached.
    return { ...base, allowed: false, used: limit ?? 0, remaining: 0 };
  }
  const used = attempt.used;
  return { ...base, allowed: true, used, remaining: limit === null ? null : Math.max(0, limit - used) };
}

/** One statement: reuse this message's reservation, or count one more within the limit and record it. */
async function tryReserve(
  db: Db,
  { uid, day, messageId, limit }: { uid: string; day: string; messageId: string; limit: DailyLimit },
): Promise<{ used: number | null; stale: number }> {
  const guard = limit === null ? sql`` : sql`where ${usageDaily.messages} < ${limit}`;
  const result = await db.execute<{ counted: number | null; held: boolean; current: number | null; stale: number }>(sql`
    with held as (
      update ${quotaReservations} set reserved_at = now()
      where uid = ${uid} and message_id = ${messageId}::uuid and day = ${day}::date
      returning 1
    ),
    counted as (
      insert into ${usageDaily} (uid, day, messages)
      select ${uid}, ${day}::date, 1 where not exists (select 1 from held)
      on conflict (uid, day) do update set messages = ${usageDaily.messages} + 1 ${guard}
      returning messages
    ),
    recorded as (
      insert into ${quotaReservations} (uid, message_id, day)
      select ${uid}, ${messageId}::uuid, ${day}::date from counted
      on conflict (uid, message_id) do update set day = excluded.day, reserved_at = now()
      returning 1
    )
    select
      (select messages from counted) as counted,
      exists (select 1 from held) as held,
      (select messages from ${usageDaily} where uid = ${uid} and day = ${day}::date) as current,
      (select count(*) from ${quotaReservations}
        where uid = ${uid} and message_id <> ${messageId}::uuid
          and reserved_at < now() - ${RESERVATION_LEASE}::interval)::int as stale
  `);
  const row = result.rows[0];
  const used = row.held ? Number(row.current ?? 0) : row.counted === null ? null : Number(row.counted);
  return { used, stale: Number(row.stale) };
}

/** Gives back the reservations of this user's replies that died (older than the lease). */
async function reclaimStale(db: Db, uid: string, messageId: string): Promise<void> {
  await db.execute(sql`
    with stale as (
      delete from ${quotaReservations}
      where uid = ${uid} and message_id <> ${messageId}::uuid
        and reserved_at < now() - ${RESERVATION_LEASE}::interval
      returning day
    )
    update ${usageDaily} u set messages = greatest(u.messages - s.n, 0)
    from (select day, count(*)::int as n from stale group by day) s
    where u.uid = ${uid} and u.day = s.day
  `);
}

/** Gives back a reservation whose reply failed; a second call for it changes nothing. */
export async function refundMessage(db: Db, reservation: Pick<Reservation, "uid" | "messageId">): Promise<void> {
  await db.execute(sql`
    with released as (
      delete from ${quotaReservations}
      where uid = ${reservation.uid} and message_id = ${reservation.messageId}::uuid
      returning day
    )
    update ${usageDaily} set messages = greatest(${usageDaily.messages} - 1, 0)
    where uid = ${reservation.uid} and day in (select day from released)
  `);
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
