import { sql } from "drizzle-orm";
import { index, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { replyRuns } from "./runs";

/**
 * Telling people a reply is done (docs/decisions/101): the devices that take
 * Web Push, the tabs that are visible now, and the claim that makes one
 * notice go out once whichever instance ends the run.
 */

/** One browser's push subscription (its endpoint and keys, as PushSubscription.toJSON() gives them). */
export const pushSubscriptions = pgTable(
  "push_subscriptions",
  {
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    /** The push service's URL for this browser: unique, a browser re-subscribing replaces its row. */
    endpoint: text("endpoint").notNull().unique(),
    /** The browser's P-256 public key and auth secret, base64url: what the message is encrypted for. */
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    /** "Chrome on Android", from the user agent at subscription: to tell devices apart in the list. */
    device: text("device").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** The last notice the push service accepted for it. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (t) => [index("push_subscriptions_uid_idx").on(t.uid, t.createdAt)],
);

/**
 * A tab of the user's that is visible now: it reports itself while visible
 * (a heartbeat), and the row counts until `visible_until`; a tab that hides
 * deletes its row. No notice goes out while the user has one.
 */
export const tabPresence = pgTable(
  "tab_presence",
  {
    uid: text("uid").notNull(),
    tab: uuid("tab").notNull(),
    visibleUntil: timestamp("visible_until", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.uid, t.tab] })],
);

/**
 * One row per notice sent for a run ("ended", or "approval:<call id>"): the
 * insert is the claim, so one instance sends it. Goes with its run.
 */
export const replyNotices = pgTable(
  "reply_notices",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => replyRuns.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    /** What came of it, once decided: pushed, emailed, or why not (a tab was visible, a short reply…). */
    outcome: text("outcome"),
    claimedAt: timestamp("claimed_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.runId, t.kind] })],
);
