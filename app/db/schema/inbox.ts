import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** The admin inbox (contact messages and reports on replies) and the role audit trail. */

export const INBOX_KINDS = ["contact", "report"] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

export const INBOX_STATUSES = ["new", "read", "archived"] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

export const REPORT_REASONS = ["harmful", "wrong", "other"] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/**
 * A snapshot of the reported exchange, copied when the report is made: the
 * inbox keeps showing it after the conversation is edited or deleted, and
 * admins never need to read users' conversations themselves.
 */
export interface ReportedExchange {
  conversationId: string | null;
  messageId: string;
  userText: string;
  assistantText: string;
  /** Names of the files the user's message was sent with (their content is not copied). */
  attachmentNames?: string[];
}

export const inboxMessages = pgTable(
  "inbox_messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    kind: text("kind", { enum: INBOX_KINDS }).notNull(),
    status: text("status", { enum: INBOX_STATUSES }).notNull().default("new"),
    senderEmail: text("sender_email").notNull(),
    /** Null for a signed-out visitor: the email is what they typed, unverified. */
    senderUid: text("sender_uid"),
    /**
     * Whether a signed-in sender's address was verified when they wrote (the
     * inbox must not present an unverified address as proven). Null for a
     * signed-out visitor, and for messages stored before this was recorded.
     */
    senderVerified: boolean("sender_verified"),
    senderName: text("sender_name"),
    /** The sender's stripeRole when they wrote ("" for none or signed out). */
    senderRole: text("sender_role").notNull().default(""),
    body: text("body").notNull(),
    reportReason: text("report_reason", { enum: REPORT_REASONS }),
    exchange: jsonb("exchange").$type<ReportedExchange>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("inbox_messages_kind_check", sql`${t.kind} in ('contact', 'report')`),
    check("inbox_messages_status_check", sql`${t.status} in ('new', 'read', 'archived')`),
    check(
      "inbox_messages_report_check",
      sql`(${t.kind} = 'report') = (${t.reportReason} is not null and ${t.exchange} is not null)`,
    ),
    // The list is read newest first, page by page (keyset on created_at, id). NULLS FIRST is the
    // order `desc()` asks for in a query: drizzle-kit writes a bare .desc() as NULLS LAST, an order
    // the planner cannot read that list in, either way (docs/benchmarks.md, "Scale curves").
    index("inbox_messages_created_idx").on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    // The nav badge counts new messages on every admin page.
    index("inbox_messages_new_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'new'`),
    // Full-text search over the text and the sender (inbox.server.ts uses the same expression).
    index("inbox_messages_search_idx").using(
      "gin",
      sql`to_tsvector('simple', ${t.senderEmail} || ' ' || coalesce(${t.senderName}, '') || ' ' || ${t.body})`,
    ),
    // Part of an address or name ("alice" finds alice@example.com): ilike through trigrams (docs/decisions/102).
    index("inbox_messages_sender_email_trgm_idx").using("gin", t.senderEmail.op("gin_trgm_ops")),
    index("inbox_messages_sender_name_trgm_idx").using("gin", t.senderName.op("gin_trgm_ops")),
  ],
);

export type InboxMessage = typeof inboxMessages.$inferSelect;

/** Every change of a user's stripeRole made from the admin area: who, when, old → new. */
export const roleAudit = pgTable(
  "role_audit",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    actorEmail: text("actor_email").notNull(),
    actorUid: text("actor_uid").notNull(),
    targetEmail: text("target_email").notNull(),
    oldRole: text("old_role").notNull(),
    newRole: text("new_role").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("role_audit_created_idx").on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst())],
);

export type RoleChange = typeof roleAudit.$inferSelect;

export const ACCOUNT_ACTIONS = ["disable", "enable", "sign-out-everywhere", "delete"] as const;
export type AccountAction = (typeof ACCOUNT_ACTIONS)[number];

/**
 * What admins did to other people's accounts from /admin/users besides their
 * role (which role_audit records): disabling, enabling, signing them out
 * everywhere, deleting them. Who, to whom, when — kept like role_audit when accounts go.
 */
export const accountAudit = pgTable(
  "account_audit",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    actorEmail: text("actor_email").notNull(),
    actorUid: text("actor_uid").notNull(),
    targetEmail: text("target_email").notNull(),
    targetUid: text("target_uid").notNull(),
    action: text("action", { enum: ACCOUNT_ACTIONS }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("account_audit_created_idx").on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    check("account_audit_action_check", sql`${t.action} in ('disable', 'enable', 'sign-out-everywhere', 'delete')`),
  ],
);

export type AccountAuditRow = typeof accountAudit.$inferSelect;

export const REPLY_DELIVERIES = ["stored", "sending", "sent", "failed"] as const;
/**
 * What became of a reply: stored only (no SMTP_URL: the admin sends it with
 * the mailto link), being sent, sent by email, or failed (with the reason).
 */
export type ReplyDelivery = (typeof REPLY_DELIVERIES)[number];

/** An admin's reply to an inbox message, kept with it and shown in its thread. */
export const inboxReplies = pgTable(
  "inbox_replies",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    // Deleting the message deletes its thread (a deleted account deletes its messages).
    messageId: uuid("message_id")
      .notNull()
      .references(() => inboxMessages.id, { onDelete: "cascade" }),
    authorUid: text("author_uid").notNull(),
    authorEmail: text("author_email").notNull(),
    body: text("body").notNull(),
    delivery: text("delivery", { enum: REPLY_DELIVERIES }).notNull(),
    /** Why sending failed, in the SMTP server's or the network's words. */
    deliveryError: text("delivery_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
  },
  (t) => [
    check("inbox_replies_delivery_check", sql`${t.delivery} in ('stored', 'sending', 'sent', 'failed')`),
    index("inbox_replies_message_idx").on(t.messageId, t.createdAt),
  ],
);

export type InboxReply = typeof inboxReplies.$inferSelect;

/**
 * Admins' access to users' data beyond what they sent (docs/decisions/063):
 * today, opening the conversation behind a report. Who, what, when; kept
 * when the message or the conversation is deleted.
 */
export const adminAudit = pgTable(
  "admin_audit",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    actorUid: text("actor_uid").notNull(),
    actorEmail: text("actor_email").notNull(),
    action: text("action").notNull(),
    /** The inbox message the access went through. */
    messageId: uuid("message_id"),
    /** The user whose data was read, and which conversation. */
    subjectUid: text("subject_uid"),
    conversationId: uuid("conversation_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("admin_audit_created_idx").on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index("admin_audit_message_idx").on(t.messageId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  ],
);

export type AdminAuditEntry = typeof adminAudit.$inferSelect;
