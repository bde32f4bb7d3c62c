import { bigint, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Notices kept as rows, for instances that cannot LISTEN (DATABASE_URL a
 * transaction pooler and no DATABASE_DIRECT_URL; docs/decisions/097): a
 * publisher inserts what it would have NOTIFYed, every instance reads the
 * new rows a few times a second (app/db/notice-log.server.ts). Kept minutes.
 */
export const polledNotices = pgTable(
  "polled_notices",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    channel: text("channel").notNull(),
    payload: text("payload").notNull(),
    /** The publishing process: it has delivered the notice to itself already. */
    origin: text("origin").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("polled_notices_created_idx").on(t.createdAt)],
);
