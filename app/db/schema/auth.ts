import { integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** Session and abuse-limit state shared by every server instance. */

/** Fixed-window counters shared by every server instance (rate limits). */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text("key").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true }).notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

/**
 * Sessions ended by logout, by hash of their cookie, until the cookie would
 * have expired anyway: every instance refuses them at once, even a cookie
 * minted in the same second as a refresh-token revocation.
 */
export const revokedSessions = pgTable("revoked_sessions", {
  tokenHash: text("token_hash").primaryKey(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  revokedAt: timestamp("revoked_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Accounts that were deleted, by uid: a chat request still in flight when its
 * account is deleted checks this (under the per-account lock of
 * app/data/account-lock.server.ts) and writes nothing, so deletion wins.
 * Firebase never reuses a uid, so a row never blocks a later account.
 */
export const deletedAccounts = pgTable("deleted_accounts", {
  uid: text("uid").primaryKey(),
  deletedAt: timestamp("deleted_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Secrets the app makes for itself, shared by every instance: each is made
 * once, at first use, so no operator has to configure it (the contact form's
 * challenges are signed with one: docs/decisions/076).
 */
export const serverSecrets = pgTable("server_secrets", {
  name: text("name").primaryKey(),
  secret: text("secret").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
