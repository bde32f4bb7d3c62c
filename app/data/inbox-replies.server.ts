import { and, asc, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import {
  adminAudit,
  conversations,
  inboxReplies,
  messageFeedback,
  messages,
  type InboxMessage,
  type InboxReply,
  type ReplyDelivery,
} from "~/db/schema";
import { log } from "~/log/logger.server";
import { quoted, sendReplyMail } from "~/mail/reply-mail.server";
import { storableString } from "~/text/storable-text";
import { withDatabase } from "~/http/with-database.server";
import { isUuid } from "~/ids/uuid";

/**
 * A message's thread on the admin desk: the admins' replies to it, the 👍/👎
 * the reporter gave the reported reply, and the reported conversation, which
 * an admin may open read-only, each opening written to the admin audit
 * (docs/decisions/063).
 */

export const REPLY_MAX_CHARS = 10_000;

export interface Admin {
  uid: string;
  email: string;
}

export async function listReplies(db: Db, messageId: string): Promise<InboxReply[]> {
  return db
    .select()
    .from(inboxReplies)
    .where(eq(inboxReplies.messageId, messageId))
    .orderBy(asc(inboxReplies.createdAt), asc(inboxReplies.id));
}

/** Stored before any sending, so a reply is never lost to a mail server's fault. */
export async function storeReply(
  db: Db,
  messageId: string,
  author: Admin,
  body: string,
  delivery: "stored" | "sending",
): Promise<InboxReply> {
  const [row] = await db
    .insert(inboxReplies)
    .values({ messageId, authorUid: author.uid, authorEmail: author.email, body, delivery })
    .returning();
  return row;
}

/** How sending ended: sent (with the time) or failed (with the reason). */
export async function recordDelivery(
  db: Db,
  replyId: string,
  outcome: { delivery: Extract<ReplyDelivery, "sent" | "failed">; error?: string },
) {
  await db
    .update(inboxReplies)
    .set({
      delivery: outcome.delivery,
      deliveryError: outcome.error ?? null,
      sentAt: outcome.delivery === "sent" ? sql`now()` : null,
    })
    .where(eq(inboxReplies.id, replyId));
}

/** The reporter's rating of the reported reply: 1, -1, or null (none, or the reply is gone). */
export async function reporterRating(
  db: Db,
  message: Pick<InboxMessage, "senderUid" | "exchange">,
): Promise<1 | -1 | null> {
  if (!message.senderUid || !message.exchange?.messageId || !isUuid(message.exchange.messageId)) return null;
  const [row] = await db
    .select({ rating: messageFeedback.rating })
    .from(messageFeedback)
    .where(and(eq(messageFeedback.messageId, message.exchange.messageId), eq(messageFeedback.uid, message.senderUid)));
  return row ? (row.rating as 1 | -1) : null;
}

export interface ReportedConversation {
  title: string | null;
  messages: Array<{ id: string; role: "user" | "assistant"; parts: unknown[]; content: string }>;
}

/**
 * The conversation a report was made from, as its owner sees it now; only
 * the reporter's own (a report names its conversation, and the owner must be
 * the reporter). Null when it was deleted.
 */
export async function reportedConversation(
  db: Pick<Db, "select">,
  message: Pick<InboxMessage, "senderUid" | "exchange">,
): Promise<ReportedConversation | null> {
  const conversationId = message.exchange?.conversationId;
  if (!message.senderUid || !conversationId || !isUuid(conversationId)) return null;
  const [conversation] = await db
    .select({ title: conversations.title, currentLeafId: conversations.currentLeafId })
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.uid, message.senderUid)));
  if (!conversation) return null;
  const rows = await db
    .select({
      id: messages.id,
      parentId: messages.parentId,
      role: messages.role,
      parts: messages.parts,
      content: messages.content,
    })
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(asc(messages.seq));
  const branch = branchThrough(rows, message.exchange?.messageId ?? null, conversation.currentLeafId);
  return {
    title: conversation.title,
    messages: branch.map(({ id, role, parts, content }) => ({ id, role, parts, content })),
  };
}

/**
 * A conversation is a tree of messages (edits and regenerations branch it,
 * docs/decisions/069); the admin reads one branch, as the chat shows one:
 * the branch the owner has open when it holds the reported reply, otherwise
 * the reported reply's own (its ancestors, then each time the latest reply
 * under it). A reply no longer there: the branch the owner has open.
 * `rows` come in storage order (seq).
 */
export function branchThrough<T extends { id: string; parentId: string | null }>(
  rows: T[],
  replyId: string | null,
  leafId: string | null,
): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const upFrom = (id: string | null): T[] => {
    const path: T[] = [];
    const seen = new Set<string>();
    for (
      let row = id ? byId.get(id) : undefined;
      row && !seen.has(row.id);
      row = row.parentId ? byId.get(row.parentId) : undefined
    ) {
      seen.add(row.id);
      path.unshift(row);
    }
    return path;
  };
  const open = upFrom(leafId);
  if (replyId && byId.has(replyId)) {
    if (open.some((row) => row.id === replyId)) return open;
    const path = upFrom(replyId);
    // Down from the reply: the latest child each time (rows are in seq order, so the last one found).
    for (let last = path[path.length - 1]; ;) {
      const children = rows.filter((row) => row.parentId === last.id);
      if (children.length === 0) return path;
      last = children[children.length - 1];
      path.push(last);
    }
  }
  return open.length > 0 ? open : rows;
}

export const CONVERSATION_OPENED = "conversation-opened";

/** Written in the same transaction as the read it records: no read without its entry. */
export async function recordConversationOpened(
  db: Pick<Db, "insert">,
  admin: Admin,
  message: Pick<InboxMessage, "id" | "senderUid" | "exchange">,
) {
  await db.insert(adminAudit).values({
    actorUid: admin.uid,
    actorEmail: admin.email,
    action: CONVERSATION_OPENED,
    messageId: message.id,
    subjectUid: message.senderUid,
    conversationId: message.exchange?.conversationId ?? null,
  });
}

/** Opens the reported conversation and records the opening, both or neither. */
export async function openReportedConversation(
  db: Db,
  admin: Admin,
  message: InboxMessage,
): Promise<ReportedConversation | null> {
  return db.transaction(async (tx) => {
    const conversation = await reportedConversation(tx, message);
    if (conversation) await recordConversationOpened(tx, admin, message);
    return conversation;
  });
}

/** Who opened a message's conversation, and when, newest first. */
export async function conversationOpenings(db: Db, messageId: string, limit = 20) {
  return db
    .select({ actorEmail: adminAudit.actorEmail, createdAt: adminAudit.createdAt })
    .from(adminAudit)
    .where(and(eq(adminAudit.messageId, messageId), eq(adminAudit.action, CONVERSATION_OPENED)))
    .orderBy(desc(adminAudit.createdAt), desc(adminAudit.id))
    .limit(limit);
}

export const replySchema = z.object({
  intent: z.literal("reply"),
  reply: storableString()
    .trim()
    .min(1, "Write a reply first.")
    .max(REPLY_MAX_CHARS, `A reply can be at most ${REPLY_MAX_CHARS.toLocaleString("en")} characters.`),
});

export type ReplyOutcome =
  { replied: true; delivery: "stored" | "sent"; notice: string } | { replied: true; delivery: "failed"; error: string };

function subjectFor(message: InboxMessage): string {
  return message.kind === "report" ? "Re: your report on an assistant reply" : "Re: your message";
}

/**
 * Stores the reply, then, when SMTP_URL is set, emails it to the sender and
 * records how that went. The reply stays in the thread whatever the mail
 * server does; a failure is shown beside it with the server's reason.
 */
export async function replyToMessage(admin: Admin, message: InboxMessage, text: string): Promise<ReplyOutcome> {
  const smtp = getConfig().smtp;
  const reply = await withDatabase("storing an admin reply", (db) =>
    storeReply(db, message.id, admin, text, smtp ? "sending" : "stored"),
  );
  if (!smtp) {
    return {
      replied: true,
      delivery: "stored",
      notice: "Reply saved. Email is not set up here (SMTP_URL), so send it with the email link.",
    };
  }
  let failure: string | undefined;
  try {
    await sendReplyMail(smtp, {
      to: message.senderEmail,
      adminEmail: admin.email,
      subject: subjectFor(message),
      text: `${text}\n\n${message.body ? `You wrote:\n${quoted(message.body)}\n` : ""}`,
    });
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    log().warn({ err: error, smtpHost: smtp.host, replyId: reply.id }, "sending an admin reply failed");
  }
  await withDatabase("recording a reply's delivery", (db) =>
    recordDelivery(db, reply.id, failure === undefined ? { delivery: "sent" } : { delivery: "failed", error: failure }),
  );
  return failure === undefined
    ? { replied: true, delivery: "sent", notice: `Reply sent to ${message.senderEmail}.` }
    : { replied: true, delivery: "failed", error: `Reply saved, but the email could not be sent: ${failure}` };
}
