import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Replies being generated, independent of the request that started them
 * (docs/decisions/070): one row per run, its streamed chunks appended in
 * small batches, so any instance can show a running reply, stop it, or
 * settle it when the instance running it is gone.
 */
export const replyRuns = pgTable(
  "reply_runs",
  {
    /** The reply's message id (the stored message takes the same id). */
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    /** May not exist yet: a new chat's conversation is created with its first exchange. */
    conversationId: uuid("conversation_id").notNull(),
    userMessageId: uuid("user_message_id").notNull(),
    /** The exchange to store when the run ends (app/data/messages.server.ts, Exchange without its reply). */
    exchange: jsonb("exchange").notNull(),
    model: text("model").notNull(),
    /** running → completed | stopped | failed | interrupted. */
    status: text("status", { enum: ["running", "completed", "stopped", "failed", "interrupted"] })
      .notNull()
      .default("running"),
    /** The instance running it (host:pid:random). */
    instance: text("instance").notNull(),
    /** Renewed while it runs; past it, another instance marks the run interrupted. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }).notNull(),
    stopRequested: boolean("stop_requested").notNull().default(false),
    /** Event batches written so far (reply_run_events.seq runs 1..batches). */
    batches: integer("batches").notNull().default(0),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
  },
  (t) => [
    index("reply_runs_running_idx")
      .on(t.uid, t.conversationId)
      .where(sql`${t.status} = 'running'`),
    index("reply_runs_lease_idx")
      .on(t.leaseUntil)
      .where(sql`${t.status} = 'running'`),
    index("reply_runs_ended_idx").on(t.endedAt),
  ],
);

export const replyRunEvents = pgTable(
  "reply_run_events",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => replyRuns.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    /** The UI message chunks of one batch, in order. */
    chunks: jsonb("chunks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);
