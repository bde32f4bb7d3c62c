import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { pushSubscriptions } from "~/db/schema";
import { writeForAccount } from "./account-lock.server";

/**
 * The devices a user asked to be told on when a reply is done
 * (docs/decisions/101): one Web Push subscription per browser. They go with
 * the account (USER_TABLES), with a sign-out everywhere, and when the push
 * service says the subscription is gone (404/410).
 */

export interface PushSubscriptionInput {
  endpoint: string;
  p256dh: string;
  auth: string;
  device: string;
}

export interface PushDevice {
  id: string;
  device: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export type StoredPushSubscription = PushDevice & Pick<PushSubscriptionInput, "endpoint" | "p256dh" | "auth">;

/** A user's devices, at most this many: a browser re-subscribing replaces its row, so more means leftovers. */
export const MAX_DEVICES = 20;

export class TooManyDevicesError extends Error {}

/**
 * Keeps a browser's subscription for this user. The endpoint is the
 * browser's: subscribing again (new keys), or as another account on the same
 * browser, replaces the row, so a shared browser is told about its current
 * user only. Returns the row's id.
 */
export async function savePushSubscription(db: Db, uid: string, input: PushSubscriptionInput): Promise<string> {
  return writeForAccount(db, uid, async (tx) => {
    const [{ count }] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(pushSubscriptions)
      .where(and(eq(pushSubscriptions.uid, uid), sql`${pushSubscriptions.endpoint} <> ${input.endpoint}`));
    if (count >= MAX_DEVICES) throw new TooManyDevicesError(`At most ${MAX_DEVICES} devices can be told.`);
    const [row] = await tx
      .insert(pushSubscriptions)
      .values({ id: crypto.randomUUID(), uid, ...input })
      .onConflictDoUpdate({
        target: pushSubscriptions.endpoint,
        set: { uid, p256dh: input.p256dh, auth: input.auth, device: input.device, createdAt: sql`now()` },
      })
      .returning({ id: pushSubscriptions.id });
    return row.id;
  });
}

const DEVICE_COLUMNS = {
  id: pushSubscriptions.id,
  device: pushSubscriptions.device,
  createdAt: pushSubscriptions.createdAt,
  lastUsedAt: pushSubscriptions.lastUsedAt,
};

/** The user's devices for the settings list, oldest first. */
export async function listPushDevices(db: Db, uid: string): Promise<PushDevice[]> {
  return db
    .select(DEVICE_COLUMNS)
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.uid, uid))
    .orderBy(asc(pushSubscriptions.createdAt));
}

/** What a notice is sent with: the devices and their keys. */
export async function pushSubscriptionsOf(db: Db, uid: string): Promise<StoredPushSubscription[]> {
  return db
    .select({
      ...DEVICE_COLUMNS,
      endpoint: pushSubscriptions.endpoint,
      p256dh: pushSubscriptions.p256dh,
      auth: pushSubscriptions.auth,
    })
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.uid, uid));
}

/** Removes one of the user's devices, by its id or by its endpoint; false when it was not theirs or is gone. */
export async function removePushSubscription(
  db: Db,
  uid: string,
  which: { id: string } | { endpoint: string },
): Promise<boolean> {
  const match = "id" in which ? eq(pushSubscriptions.id, which.id) : eq(pushSubscriptions.endpoint, which.endpoint);
  const rows = await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.uid, uid), match))
    .returning({ id: pushSubscriptions.id });
  return rows.length > 0;
}

/** Sign out everywhere: no device goes on hearing about the account's replies. */
export async function removeAllPushSubscriptions(db: Db, uid: string): Promise<number> {
  const rows = await db
    .delete(pushSubscriptions)
    .where(eq(pushSubscriptions.uid, uid))
    .returning({ id: pushSubscriptions.id });
  return rows.length;
}

/** The push service said the subscription is gone (404 or 410): it will never take a message again. */
export async function dropExpiredSubscription(db: Db, id: string): Promise<void> {
  await db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, id));
}

export async function markSubscriptionUsed(db: Db, id: string): Promise<void> {
  await db
    .update(pushSubscriptions)
    .set({ lastUsedAt: sql`now()` })
    .where(eq(pushSubscriptions.id, id));
}

/** Whether the user is told about replies at all (a device, or email chosen): only then do their tabs report whether they are visible. */
export async function wantsNotices(db: Db, uid: string): Promise<boolean> {
  const result = await db.execute<{ wants: boolean }>(sql`
    select exists (select 1 from ${pushSubscriptions} where uid = ${uid})
        or exists (select 1 from user_preferences where uid = ${uid} and notify_email) as wants
  `);
  return Boolean(result.rows[0]?.wants);
}
