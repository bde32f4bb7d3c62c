import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { DEFAULT_MESSAGE_MAX_CHARS } from "~/settings/chat-limits";
import { nextUtcMidnight, utcDay } from "~/time/day";
import { lookupRole, roleKey, type DailyLimit } from "~/settings/role-settings";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { quotaReservations, usageDaily } from "~/db/schema";
import { writeForAccount, type Tx } from "./account-lock.server";

/**
 * Daily message quotas, counted in PostgreSQL (usage_daily.messages) so that
 * every server instance shares one count. A send first CLAIMS its message id
 * (a row in quota_reservations, primary key (uid, message_id)), then counts
 * it with a guarded upsert, in one short transaction under the account's lock
 * (app/data/account-lock.server.ts: nothing is counted for a deleted account):
 *   - concurrent sends can never take the count past the limit;
 *   - concurrent sends of ONE message id: the first claims it, every other is
 *     refused ("in flight") until the first settles — one reply, one unit;
 *   - the claim ends when the reply is stored (saveExchange removes it, the
 *     count stays), when a reply that was shown fails (settleMessage: it still
 *     counts, docs/decisions/044), or when nothing was shown (refundMessage
 *     gives the unit back);
 *   - a reply in flight refreshes its claim (HEARTBEAT_MS); a claim whose
 *     reply is over but could not be released (the store failed with the
 *     reply, or its server died) is taken over by a Retry of the same message:
 *     at once on this instance, which knows (counting anew if the failed reply
 *     was shown, reusing the unit if not), elsewhere once the claim has not been
 *     refreshed for IN_FLIGHT_WINDOW (reusing the unit). One never retried is
 *     given back after RESERVATION_LEASE.
 */

/** Far longer than any reply streams; a reservation older than this belonged to a reply that died. */
export const RESERVATION_LEASE = "15 minutes";

/**
 * A reply in flight refreshes its claim this often (`touchReservation`); a claim
 * not refreshed for IN_FLIGHT_WINDOW belongs to a reply that is over (its server
 * died), so a Retry of the message may take it over, reusing its unit.
 */
export const HEARTBEAT_MS = 5_000;
export const IN_FLIGHT_WINDOW = "20 seconds";

/** A role as a string, or a signed-in session (so an unverified "admin" is not treated as one). */
export type RoleInput = string | { role: string; isAdmin: boolean };

/** The key a role's per-role settings are looked up by (a bare "admin" string counts as a verified admin). */
export function roleKeyOf(role: RoleInput): string {
  return typeof role === "string" ? roleKey({ role, isAdmin: role === "admin" }) : roleKey(role);
}

export function dailyLimitFor(role: RoleInput): DailyLimit {
  const key = roleKeyOf(role);
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
  /** Refused because another send of this message id is being answered (not for the quota). */
  inFlight: boolean;
  /** The UTC day the message was counted on (a refund goes back to it). */
  day: string;
  uid: string;
  /** The user's message the reservation is for. */
  messageId: string;
}

/**
 * Claims of this instance whose reply ended but whose release could not be
 * written (the store was failing): not in flight any more, so a Retry of the
 * message may take them over. Bounded: entries go after the lease.
 */
const unsettled = new Map<string, { at: number; shown: boolean }>();
const LEASE_MS = 15 * 60 * 1000;

function unsettledKey(uid: string, messageId: string) {
  return `${uid}:${messageId}`; // a message id is a UUID: unambiguous
}

/**
 * Notes that this claim's reply is over although the store could not be told
 * (see `unsettled`). `shown`: some of the reply was shown, so its unit stays
 * used and a Retry counts anew; otherwise the Retry reuses the unit.
 */
export function markUnsettled(
  reservation: Pick<Reservation, "uid" | "messageId">,
  { shown = false } = {},
  now = Date.now(),
) {
  for (const [key, entry] of unsettled) if (now - entry.at > LEASE_MS) unsettled.delete(key);
  unsettled.set(unsettledKey(reservation.uid, reservation.messageId), { at: now, shown });
}

/**
 * Claims the message and counts it against the day's quota unless the limit
 * is reached (allowed: false) or the message is already being answered
 * (allowed: false, inFlight: true). Throws AccountDeletedError for a deleted account.
 * `messageId`: the user's message; without one, a reservation no reply will claim.
 */
export async function reserveMessage(
  db: Db,
  uid: string,
  limit: DailyLimit,
  { messageId = randomUUID(), now = new Date() }: { messageId?: string; now?: Date } = {},
): Promise<Reservation> {
  const day = utcDay(now);
  const resetsAt = nextUtcMidnight(now);
  const base = { day, uid, messageId, limit, resetsAt, inFlight: false };
  if (limit !== null && limit <= 0) return { ...base, allowed: false, used: 0, remaining: 0 };
  const key = unsettledKey(uid, messageId);
  const over = unsettled.get(key);
  const takeOver = over !== undefined;

  const used = await writeForAccount(db, uid, async (tx) => {
    if (over?.shown) {
      // Its reply was shown and stays counted: settle that claim now, and count this send as a new one.
      await tx.execute(sql`delete from ${quotaReservations} where uid = ${uid} and message_id = ${messageId}::uuid`);
    }
    // The claim: the primary key makes it atomic; a concurrent send of the same id waits here for ours to commit.
    const claim = await tx.execute<{ claimed: boolean; stale: number }>(sql`
      with claimed as (
        insert into ${quotaReservations} (uid, message_id, day) values (${uid}, ${messageId}::uuid, ${day}::date)
        on conflict (uid, message_id) do nothing
        returning 1
      )
      select exists (select 1 from claimed) as claimed,
        (select count(*) from ${quotaReservations}
          where uid = ${uid} and message_id <> ${messageId}::uuid
            and reserved_at < now() - ${RESERVATION_LEASE}::interval)::int as stale
    `);
    // Rare (a server died mid-reply, never retried): give those back before counting. Never this message's own claim.
    if (Number(claim.rows[0].stale) > 0) await reclaimStale(tx, uid, messageId);
    if (!claim.rows[0].claimed) {
      // Held already: in flight, unless its reply is known to be over (or died, past the lease).
      const taken = await tx.execute(sql`
        update ${quotaReservations} set reserved_at = now()
        where uid = ${uid} and message_id = ${messageId}::uuid
          and (${takeOver} or reserved_at < now() - ${IN_FLIGHT_WINDOW}::interval)
        returning 1
      `);
      if (taken.rows.length === 0) return "in-flight" as const;
      // Its unit is still counted: reuse it rather than count twice.
      const [row] = await tx
        .select({ messages: usageDaily.messages })
        .from(usageDaily)
        .where(and(eq(usageDaily.uid, uid), eq(usageDaily.day, day)));
      return row?.messages ?? 0;
    }
    const guard = limit === null ? sql`` : sql`where ${usageDaily.messages} < ${limit}`;
    const counted = await tx.execute<{ messages: number }>(sql`
      insert into ${usageDaily} (uid, day, messages) values (${uid}, ${day}::date, 1)
      on conflict (uid, day) do update set messages = ${usageDaily.messages} + 1 ${guard}
      returning messages
    `);
    if (counted.rows.length === 0) {
      // The guard refused: the limit is reached; the claim goes with the refusal.
      await tx.execute(sql`delete from ${quotaReservations} where uid = ${uid} and message_id = ${messageId}::uuid`);
      return null;
    }
    return Number(counted.rows[0].messages);
  });
  if (used === "in-flight") return { ...base, allowed: false, inFlight: true, used: 0, remaining: null };
  unsettled.delete(key);
  if (used === null) return { ...base, allowed: false, used: limit ?? 0, remaining: 0 };
  return { ...base, allowed: true, used, remaining: limit === null ? null : Math.max(0, limit - used) };
}

/** Gives back the reservations of this user's replies that died (older than the lease). */
async function reclaimStale(tx: Tx, uid: string, messageId: string): Promise<void> {
  await tx.execute(sql`
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
  unsettled.delete(unsettledKey(reservation.uid, reservation.messageId));
}

/** Keeps a reply's claim marked in flight (see HEARTBEAT_MS); a no-op once it is settled. */
export async function touchReservation(db: Db, reservation: Pick<Reservation, "uid" | "messageId">): Promise<void> {
  await db.execute(sql`
    update ${quotaReservations} set reserved_at = now()
    where uid = ${reservation.uid} and message_id = ${reservation.messageId}::uuid
  `);
}

/**
 * Ends the claim of a reply that was shown but could not be stored: the
 * message stays counted (docs/decisions/044), and the message may be sent again.
 */
export async function settleMessage(
  db: Db,
  reservation: Pick<Reservation, "uid" | "messageId">,
  spent: { inputTokens: number; outputTokens: number; costMicroUsd: number } = {
    inputTokens: 0,
    outputTokens: 0,
    costMicroUsd: 0,
  },
): Promise<void> {
  // What the reply used is spent, stored or not (docs/decisions/072); only if this call ended the claim.
  await db.execute(sql`
    with settled as (
      delete from ${quotaReservations}
      where uid = ${reservation.uid} and message_id = ${reservation.messageId}::uuid
      returning day
    )
    update ${usageDaily} set
      input_tokens = ${usageDaily.inputTokens} + ${spent.inputTokens}::bigint,
      output_tokens = ${usageDaily.outputTokens} + ${spent.outputTokens}::bigint,
      cost_micro_usd = ${usageDaily.costMicroUsd} + ${spent.costMicroUsd}::bigint
    where uid = ${reservation.uid} and day in (select day from settled)
  `);
  unsettled.delete(unsettledKey(reservation.uid, reservation.messageId));
}

/** The longest message the role may send, in characters (MESSAGE_MAX_CHARS). */
export function messageMaxCharsFor(role: RoleInput): number {
  const key = roleKeyOf(role);
  return lookupRole(getConfig().messageMaxChars, key) ?? DEFAULT_MESSAGE_MAX_CHARS;
}

/** The largest cap of any role: the chat endpoint reads a body up to what it may need. */
export function largestMessageMaxChars(): number {
  // Never empty: the `*` entry always exists (parseMessageMaxChars keeps its default).
  return Math.max(...getConfig().messageMaxChars.values());
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
