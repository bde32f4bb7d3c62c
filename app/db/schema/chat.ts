import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  type AnyPgColumn,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";

/** The assistant's data: conversations, their messages, daily usage and preferences, all owned by a uid. */

export const conversations = pgTable(
  "conversations",
  {
    // Chosen by the browser for a new chat (a UUID), so the page can keep its URL and state.
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    /** Null until the first exchange names it (the UI shows "New chat"). */
    title: text("title"),
    /** The model picked for this conversation. */
    model: text("model"),
    /** Instructions the conversation started with, e.g. from a prompt tool. */
    systemPrompt: text("system_prompt"),
    /** The user's custom instructions as they were when the conversation began. */
    customInstructions: text("custom_instructions"),
    /**
     * The last message of the branch shown (docs/decisions/069): the page, the
     * model, the export and a share follow the path from the root to it. No
     * foreign key (the two tables would reference each other); a reader falls
     * back to the latest message when it is null or not in the conversation.
     */
    currentLeafId: uuid("current_leaf_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /** Pinned: listed first (docs/decisions/085); null when not pinned. */
    pinnedAt: timestamp("pinned_at", { withTimezone: true }),
    /** Archived: out of the list, in the Archived view and in search (docs/decisions/085). */
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    /** The folder it is filed in; deleting the folder puts it back among the loose chats. */
    folderId: uuid("folder_id").references((): AnyPgColumn => conversationFolders.id, { onDelete: "set null" }),
    /**
     * A temporary chat (docs/decisions/085): never listed, searched, titled by
     * a model, exported or shared, and deleted when its page is left (or by the
     * sweep, a day after it was made).
     */
    temporary: boolean("temporary").notNull().default(false),
    /**
     * The tools switched off for this chat only, from the composer's tools
     * menu: built-in tool ids and servers' switch ids (mcp:<server>/<tool>).
     * Null: none. It only narrows what the role and the user's own switches
     * allow (app/chat/chat-tools.server.ts).
     */
    toolsOff: text("tools_off").array(),
    /**
     * The project it belongs to (docs/decisions/106): the project's instructions
     * join every reply's system prompt. Deleting a project either deletes its
     * chats first or leaves them here, cleared (app/data/projects.server.ts).
     */
    projectId: uuid("project_id").references((): AnyPgColumn => projects.id, { onDelete: "set null" }),
  },
  (t) => [
    // The list, most recently active first, read in this order up to its limit; NULLS FIRST as in
    // inbox_messages_created_idx (app/db/schema/inbox.ts).
    index("conversations_uid_updated_idx").on(t.uid, t.updatedAt.desc().nullsFirst()),
    // A project's chats, deleted or let out with it (and the key's set null looks them up by it).
    index("conversations_project_idx").on(t.projectId),
    // The sweep of abandoned temporary chats reads only these.
    index("conversations_temporary_created_idx")
      .on(t.createdAt)
      .where(sql`${t.temporary}`),
  ],
);

/**
 * A user's projects (docs/decisions/106): a name, instructions that every chat
 * in it follows, and its chats (conversations.project_id).
 */
export const projects = pgTable(
  "projects",
  {
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    name: text("name").notNull(),
    /** Given to the model with every reply in the project's chats; empty: none. */
    instructions: text("instructions").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("projects_uid_idx").on(t.uid)],
);

/** A user's folders of conversations (docs/decisions/085). */
export const conversationFolders = pgTable(
  "conversation_folders",
  {
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("conversation_folders_uid_idx").on(t.uid)],
);

export const messages = pgTable(
  "messages",
  {
    id: uuid("id").primaryKey(),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    /**
     * The message this one follows (null for a first message): messages form
     * a tree, an edit or a regenerated reply being a sibling of the version
     * it replaces (docs/decisions/069).
     */
    parentId: uuid("parent_id").references((): AnyPgColumn => messages.id, { onDelete: "cascade" }),
    /** Order within the conversation (timestamps can tie); among siblings, the latest is the highest. */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity(),
    role: text("role", { enum: ["user", "assistant"] }).notNull(),
    /** The message's UI parts (text, tool steps) as the AI SDK streams them. */
    parts: jsonb("parts").$type<unknown[]>().notNull(),
    /** Plain text of the parts, for search and export. */
    content: text("content").notNull(),
    /** How a reply ended; null for the user's messages. */
    status: text("status", { enum: ["completed", "stopped", "interrupted"] }),
    model: text("model"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    /** What the reply cost at LLM_MODEL_PRICES, in micro-dollars (0: unpriced). */
    costMicroUsd: bigint("cost_micro_usd", { mode: "number" }).notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [
    index("messages_conversation_seq_idx").on(t.conversationId, t.seq),
    // History search matches a substring of the text, case-insensitive (ilike): trigrams let it read
    // only the messages that can hold it, instead of every message of the user (docs/decisions/102).
    index("messages_content_trgm_idx").using("gin", t.content.op("gin_trgm_ops")),
    // The parent key's cascade looks children up by it.
    index("messages_parent_idx").on(t.parentId),
    // A reply always says how it ended; a user's message never claims to.
    check(
      "messages_reply_status",
      sql`(${t.role} = 'assistant' and ${t.status} is not null) or (${t.role} = 'user' and ${t.status} is null)`,
    ),
  ],
);

/** One row per user and UTC day: the quota's count and the dashboard's figures. */
export const usageDaily = pgTable(
  "usage_daily",
  {
    uid: text("uid").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    messages: integer("messages").notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    /** Spend at LLM_MODEL_PRICES, in micro-dollars (docs/decisions/072). */
    costMicroUsd: bigint("cost_micro_usd", { mode: "number" }).notNull().default(0),
    /** The role (plan) of the day's latest stored reply ("none": no role), for usage per plan. */
    role: text("role").notNull().default(""),
  },
  (t) => [primaryKey({ columns: [t.uid, t.day] }), check("usage_daily_messages_nonnegative", sql`${t.messages} >= 0`)],
);

/**
 * Replies stored per UTC day and model, deployment-wide (no uid): what the
 * admin usage page shows per model, read as at most 30 × models rows instead
 * of summing a month of messages. Counted in the statement that stores the
 * exchange (app/data/messages.server.ts saveExchange); kept when a chat or an
 * account is deleted, like the spend it records (docs/decisions/102).
 */
export const modelUsageDaily = pgTable(
  "model_usage_daily",
  {
    day: date("day", { mode: "string" }).notNull(),
    model: text("model").notNull(),
    replies: integer("replies").notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    costMicroUsd: bigint("cost_micro_usd", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.model] })],
);

/**
 * A message counted in usage_daily whose reply is not stored yet, keyed by
 * the user's message id. Storing the exchange removes it (the count stays); a
 * failed reply removes it and gives the count back; a Retry of the same
 * message reuses it. One left behind (the server died mid-reply, or the store
 * failed while the refund was due) is given back once it is older than the
 * lease in app/data/quotas.server.ts.
 */
export const quotaReservations = pgTable(
  "quota_reservations",
  {
    uid: text("uid").notNull(),
    messageId: uuid("message_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    reservedAt: timestamp("reserved_at", { withTimezone: true }).notNull().defaultNow(),
    /** The budget this reply holds until it settles (docs/decisions/072): its prompt plus its largest reply. */
    heldTokens: bigint("held_tokens", { mode: "number" }).notNull().default(0),
    heldMicroUsd: bigint("held_micro_usd", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.uid, t.messageId] })],
);

export const userPreferences = pgTable("user_preferences", {
  uid: text("uid").primaryKey(),
  customInstructions: text("custom_instructions").notNull().default(""),
  /** The colour theme the user picked: light, dark, or the system's. */
  theme: text("theme", { enum: ["light", "dark", "system"] })
    .notNull()
    .default("system"),
  /** A notice that a reply is done may quote its first words (docs/decisions/101); off: the chat's title only. */
  notifyPreview: boolean("notify_preview").notNull().default(false),
  /** Without push: an email when a long reply ends (docs/decisions/101). */
  notifyEmail: boolean("notify_email").notNull().default(false),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  /** Memory across chats (docs/decisions/103): off means memories are neither read nor written. */
  memoryEnabled: boolean("memory_enabled").notNull().default(true),
});

/** The owner's 👍 (1) or 👎 (-1) on one of their replies; admins see them beside reports. */
export const messageFeedback = pgTable(
  "message_feedback",
  {
    messageId: uuid("message_id")
      .primaryKey()
      .references(() => messages.id, { onDelete: "cascade" }),
    uid: text("uid").notNull(),
    rating: integer("rating").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("message_feedback_rating", sql`${t.rating} in (1, -1)`),
    index("message_feedback_updated_idx").on(t.updatedAt.desc().nullsFirst(), t.messageId.desc().nullsFirst()),
  ],
);

/**
 * A read-only public snapshot of a conversation (/s/<id>): copied when shared,
 * so later edits never change what a link shows; revoked at once by setting
 * revoked_at. Holds no data of the owner beyond the display name they chose.
 */
export const sharedConversations = pgTable(
  "shared_conversations",
  {
    /** Random and unguessable (the link is the only key). */
    id: text("id").primaryKey(),
    uid: text("uid").notNull(),
    conversationId: uuid("conversation_id").references(() => conversations.id, { onDelete: "set null" }),
    title: text("title").notNull(),
    /** The name shown as the author, or null for none. */
    displayName: text("display_name"),
    /** The messages as shared: [{ role, parts, content }]. */
    snapshot: jsonb("snapshot").$type<unknown[]>().notNull(),
    /** The owner chose to share the files attached in it (served at /s/<id>/files/<attachment id>; docs/decisions/071). */
    includeFiles: boolean("include_files").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("shared_conversations_uid_idx").on(t.uid, t.createdAt.desc().nullsFirst())],
);

/** A user's choice for a built-in function tool; tools without a row are on. */
export const userToolSettings = pgTable(
  "user_tool_settings",
  {
    uid: text("uid").notNull(),
    toolId: text("tool_id").notNull(),
    enabled: boolean("enabled").notNull(),
    /** A server's tool: the approval the user chose, never looser than the admin's (app/conversation/tool-approval.ts); null: the admin's. */
    approval: text("approval"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.uid, t.toolId] })],
);

/**
 * Sends refused at a limit, per user, UTC day and limit ("quota": the daily
 * message quota, "budget": a spent budget), for the admin usage page.
 */
export const limitRefusals = pgTable(
  "limit_refusals",
  {
    uid: text("uid").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    limit: text("limit").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.uid, t.day, t.limit] })],
);
