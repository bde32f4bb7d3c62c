import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * Personal API keys for the app's OpenAI-compatible API (docs/decisions/099):
 * a key acts as its owner, with the owner's role at the time of each call.
 * Only a hash of the secret is kept (the secret is shown once, at creation);
 * the first characters are kept to tell keys apart. The usage columns count
 * what calls through the key spent, for the owner's dashboard and the admins'
 * usage page. Keys go with the account.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    name: text("name").notNull(),
    /** SHA-256 of the whole secret, hex: a key has 256 random bits, so no slow hash is needed. */
    secretHash: text("secret_hash").notNull(),
    /** The secret's first characters ("nvk_AbCd…"), shown in lists. */
    prefix: text("prefix").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    requests: integer("requests").notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    costMicroUsd: bigint("cost_micro_usd", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    uniqueIndex("api_keys_secret_hash_idx").on(t.secretHash),
    index("api_keys_uid_idx").on(t.uid, t.createdAt.desc().nullsFirst()),
    index("api_keys_expires_idx")
      .on(t.expiresAt)
      .where(sql`${t.expiresAt} is not null`),
  ],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * The admins' choice of API access per role (docs/decisions/100): a row says
 * whether keys of that role may call the API; a role without a row falls back
 * to API_ROLES. Read fresh on every API call, so a change applies at once on
 * every instance.
 */
export const apiRoleAccess = roleSwitchTable("api_role_access");

/**
 * A feature the admins switch per role (API access here, memory in
 * schema/memory.ts): one row per role an admin switched, who and when. The
 * name is typed as any string so every such table has one type, and
 * app/data/role-switches.server.ts reads and writes any of them.
 */
export function roleSwitchTable(name: string) {
  return pgTable(name, {
    /** The role's settings key (app/settings/role-settings.ts: "none", "admin", a plan's role). */
    roleKey: text("role_key").primaryKey(),
    enabled: boolean("enabled").notNull(),
    changedBy: text("changed_by").notNull(),
    changedAt: timestamp("changed_at", { withTimezone: true }).notNull().defaultNow(),
  });
}
