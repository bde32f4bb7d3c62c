import { sql } from "drizzle-orm";
import {
  check,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { messages } from "./chat";

/**
 * Files attached to chat messages (docs/decisions/071). In PostgreSQL, not on
 * a disk of one instance: every instance serves the same files and a backup
 * holds everything. A file is uploaded before its message is sent (message_id
 * null until then) and goes with its message (on delete cascade), so deleting
 * a message, a conversation or an account deletes its files and chunks.
 */

const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => "bytea",
});

export const attachments = pgTable(
  "attachments",
  {
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    /** The user's message it was sent with; null while it waits in the composer. */
    messageId: uuid("message_id").references(() => messages.id, { onDelete: "cascade" }),
    /** The file's name as the user's device gave it (shown, and offered when downloading). */
    name: text("name").notNull(),
    /** Read from the content (app/attachments/sniff.server.ts), never from the name. */
    kind: text("kind", { enum: ["image", "pdf", "docx", "text"] }).notNull(),
    mediaType: text("media_type").notNull(),
    size: integer("size").notNull(),
    /** A PDF's page count. */
    pages: integer("pages"),
    /** Characters of extracted text (0 for images): decides whether a document goes to the model whole. */
    chars: integer("chars").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("attachments_uid_idx").on(t.uid, t.createdAt),
    index("attachments_message_idx").on(t.messageId),
    check("attachments_size_positive", sql`${t.size} > 0`),
  ],
);

/** The file's bytes, apart from its description so that listing attachments never reads them. */
export const attachmentData = pgTable("attachment_data", {
  attachmentId: uuid("attachment_id")
    .primaryKey()
    .references(() => attachments.id, { onDelete: "cascade" }),
  bytes: bytea("bytes").notNull(),
  /** A document's whole extracted text (null for images): sent as it is when the document is short. */
  text: text("text"),
});

/**
 * A document's text in passages of about 1,500 characters, each with where it
 * is (pages or lines) and a full-text index: the passages that answer a
 * question are retrieved from here when the document is too long to send whole.
 */
export const attachmentChunks = pgTable(
  "attachment_chunks",
  {
    attachmentId: uuid("attachment_id")
      .notNull()
      .references(() => attachments.id, { onDelete: "cascade" }),
    ordinal: integer("ordinal").notNull(),
    text: text("text").notNull(),
    pageFrom: integer("page_from"),
    pageTo: integer("page_to"),
    lineFrom: integer("line_from"),
    lineTo: integer("line_to"),
    /**
     * The passage's meaning as a unit vector (LLM_EMBEDDING_MODEL), or null. A plain real[]
     * compared in SQL, not pgvector: the search covers one conversation's documents (hundreds
     * of passages), and PostgreSQL servers without the extension work the same.
     */
    embedding: real("embedding").array(),
  },
  (t) => [
    primaryKey({ columns: [t.attachmentId, t.ordinal] }),
    // English stemming: "invoices" finds "invoice". Queried with the same expression (app/attachments/retrieval.server.ts).
    index("attachment_chunks_search_idx").using("gin", sql`to_tsvector('english', ${t.text})`),
  ],
);
