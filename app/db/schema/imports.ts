import { sql } from "drizzle-orm";
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { conversations } from "./chat";

/**
 * Imports of chat history from another assistant's export (docs/decisions/104).
 * An upload is read and checked at once; its conversations wait as
 * import_items, and a background worker turns them into conversations one at
 * a time, counting progress on the job. A worker holds a job by its lease; a
 * job whose lease ran out (its instance stopped) is taken up by the next
 * worker and goes on from its first item not done.
 */
export const importJobs = pgTable(
  "import_jobs",
  {
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    /** chatgpt, claude or nuvara (this app's own account export). */
    source: text("source", { enum: ["chatgpt", "claude", "nuvara"] }).notNull(),
    fileName: text("file_name").notNull(),
    /** queued → running → done; or stopped (storage full, or given up) or failed. */
    status: text("status", { enum: ["queued", "running", "done", "stopped", "failed"] })
      .notNull()
      .default("queued"),
    total: integer("total").notNull(),
    imported: integer("imported").notNull().default(0),
    skipped: integer("skipped").notNull().default(0),
    /** Why it stopped or failed, in words fit to show. */
    message: text("message"),
    /** The role's storage limit when it was uploaded, in bytes: what the import may fill. */
    storageLimitBytes: bigint("storage_limit_bytes", { mode: "number" }).notNull(),
    /** A worker holds the job until then; past it, another may take it up. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    index("import_jobs_uid_idx").on(t.uid, t.createdAt.desc().nullsFirst()),
    index("import_jobs_unfinished_idx")
      .on(t.createdAt)
      .where(sql`${t.status} in ('queued', 'running')`),
  ],
);

/** One conversation of an upload, as read and checked; deleted with its job. */
export const importItems = pgTable(
  "import_items",
  {
    jobId: uuid("job_id")
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    ordinal: integer("ordinal").notNull(),
    sourceId: text("source_id").notNull(),
    title: text("title").notNull(),
    /** The conversation to import (app/data/import/normalized.ts); null when it was refused as read. */
    conversation: jsonb("conversation"),
    /** pending, done or skipped (with why). */
    status: text("status", { enum: ["pending", "done", "skipped"] })
      .notNull()
      .default("pending"),
    reason: text("reason"),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.ordinal] })],
);

/**
 * A conversation made by an import, under its id in the source: importing
 * the same export again skips it. Its bytes count against the user's storage
 * (app/data/attachments.server.ts storageUsed); the row goes with the chat.
 */
export const importedConversations = pgTable(
  "imported_conversations",
  {
    conversationId: uuid("conversation_id")
      .primaryKey()
      .references(() => conversations.id, { onDelete: "cascade" }),
    uid: text("uid").notNull(),
    source: text("source").notNull(),
    sourceId: text("source_id").notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("imported_conversations_source_idx").on(t.uid, t.source, t.sourceId)],
);
