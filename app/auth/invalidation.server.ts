import { getConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import {
  AUTH_NOTICE_CHANNEL,
  dispatchNotice,
  onNotice,
  onNoticesMissed,
  publishNotice,
  startNoticeListener,
  type Listener,
} from "~/db/notices.server";
import { authCache } from "./auth-cache.server";

/**
 * Invalidation at once on every instance (docs/decisions/002, "Changed"): a
 * logout, a sign-out-everywhere, a role change or a disabled account evicts
 * its auth-cache entries here at once and is published with PostgreSQL's
 * NOTIFY; every instance LISTENs on one dedicated connection and evicts the
 * same entries (behind a transaction pooler without a direct URL, a row every
 * instance polls for instead: docs/decisions/097). A notification lost (the listener reconnecting, the server
 * restarting) costs only freshness: the caches' TTL (≤ 30 s) stays the bound,
 * and a reconnected listener empties its caches, since it may have missed some.
 *
 * The embedded PGlite of local mode is one process serving one app process:
 * there the local eviction is everything, and no listener is started. The
 * listening connection itself is the database layer's (app/db/notices.server.ts).
 */

export const CHANNEL = AUTH_NOTICE_CHANNEL;

export type InvalidationReason = "logout" | "sign-out-everywhere" | "role" | "disable" | "enable" | "account";

export interface Invalidation {
  uid?: string;
  email?: string;
  /** A logged-out session: the SHA-256 of its cookie (the revocation cache's key). */
  session?: string;
  reason: InvalidationReason;
}

/**
 * Evicts what `message` names from this instance's auth caches. A logged-out
 * session is marked as such rather than evicted: that is what PostgreSQL
 * says now, and the publisher's own entry must not be lost if its write failed.
 */
function evict({ uid, email, session }: Invalidation) {
  if (uid) authCache.forgetUser(uid, email);
  if (email) authCache.forgetRole(email.toLowerCase());
  if (session) authCache.setRevoked(session, true);
}

/** The payload's shape, checked: anyone who can connect to the database can NOTIFY. */
function parse(payload: string | undefined): Invalidation | null {
  try {
    const value: unknown = JSON.parse(payload ?? "");
    if (!value || typeof value !== "object") return null;
    const { uid, email, session, reason } = value as Record<string, unknown>;
    const text = (field: unknown) =>
      typeof field === "string" && field.length > 0 && field.length <= 320 ? field : undefined;
    return {
      uid: text(uid),
      email: text(email),
      session: text(session),
      reason: (text(reason) ?? "account") as InvalidationReason,
    };
  } catch {
    return null;
  }
}

/**
 * Evicts at once here, then tells the other instances. Never throws: the
 * user's action has happened; a failed publish is logged and the other
 * instances catch up within the caches' TTL.
 */
export async function publishInvalidation(message: Invalidation): Promise<void> {
  evict(message);
  const { databaseUrl, backendTimeoutMs, authCacheTtlMs } = getConfig();
  if (!databaseUrl || authCacheTtlMs <= 0) return; // no caches, nothing to evict elsewhere
  const payload = JSON.stringify({
    uid: message.uid,
    email: message.email?.toLowerCase(),
    session: message.session,
    reason: message.reason,
  });
  try {
    await withDeadline(
      "postgres",
      backendTimeoutMs,
      getDb().then((db) => publishNotice(db.$client, CHANNEL, payload)),
    );
  } catch (error) {
    logBackendFault("postgres", "publishing an auth cache invalidation", error);
  }
}

/** Hands a notice's payload to `onMessage` when it is an invalidation; anything else is dropped. */
const deliverTo = (onMessage: (message: Invalidation) => void) => (payload: string | undefined) => {
  const message = parse(payload);
  if (message) onMessage(message);
};

/** This process's caches follow the other instances' invalidations. */
onNotice(CHANNEL, deliverTo(evict));
onNoticesMissed(() => authCache.clear());

/**
 * A listener of its own that hands this channel's invalidations to
 * `onMessage` (the other channels go to their handlers as usual).
 */
export function startListener(
  databaseUrl: string,
  { onMessage = evict }: { onMessage?: (message: Invalidation) => void } = {},
): Listener {
  const deliver = deliverTo(onMessage);
  return startNoticeListener(databaseUrl, {
    dispatch: (channel, payload) => (channel === CHANNEL ? deliver(payload) : dispatchNotice(channel, payload)),
  });
}
