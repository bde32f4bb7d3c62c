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
    // The list is read newest first, page by page (keyset on created_at, id).
    index("inbox_messages_created_idx").on(t.createdAt.desc(), t.id.desc()),
    // The nav badge counts new messages on every admin page.
    index("inbox_messages_new_idx").on(t.createdAt).where(sql`${t.status} = 'new'`),
    // Full-text search over the text and the sender (inbox.server.ts uses the same expression).
    index("inbox_messages_search_idx").using(
      "gin",
      sql`to_tsvector('simple', ${t.senderEmail} || ' ' || coalesce(${t.senderName}, '') || ' ' || ${t.body})`,
    ),
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
  (t) => [index("role_audit_created_idx").on(t.createdAt.desc(), t.id.desc())],
);

export type RoleChange = typeof roleAudit.$inferSelect;
