import { json } from "@remix-run/node";
import { z } from "zod";
import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { conversations, inboxMessages, messageFeedback, messages } from "~/db/schema";
import { plainExcerpt } from "~/text/plain-text";
import { writeForAccount } from "./account-lock.server";

/** 👍/👎 on assistant replies: one rating per reply, by the conversation's owner; admins read them. */

export type Rating = 1 | -1;

/** Sets (1 / -1) or clears (null) the owner's rating of a reply; false when the reply is not one of theirs. */
export async function rateReply(
  db: Db,
  uid: string,
  conversationId: string,
  messageId: string,
  rating: Rating | null,
): Promise<boolean> {
  // Under the account's lock: nothing is written for a deleted account (docs/decisions/045).
  return writeForAccount(db, uid, async (tx) => {
    const [owned] = await tx
      .select({ id: messages.id })
      .from(messages)
      .innerJoin(conversations, eq(conversations.id, messages.conversationId))
      .where(
        and(
          eq(messages.id, messageId),
          eq(messages.conversationId, conversationId),
          eq(conversations.uid, uid),
          eq(messages.role, "assistant"),
        ),
      )
      .limit(1);
    if (!owned) return false;
    if (rating === null) {
      await tx
        .delete(messageFeedback)
        .where(and(eq(messageFeedback.messageId, messageId), eq(messageFeedback.uid, uid)));
    } else {
      await tx
        .insert(messageFeedback)
        .values({ messageId, uid, rating })
        .onConflictDoUpdate({ target: messageFeedback.messageId, set: { rating, updatedAt: sql`now()` } });
    }
    return true;
  });
}

/** The owner's ratings of a conversation's replies, by message id. */
export async function ratingsFor(db: Db, uid: string, messageIds: string[]): Promise<Record<string, Rating>> {
  if (messageIds.length === 0) return {};
  const rows = await db
    .select({ messageId: messageFeedback.messageId, rating: messageFeedback.rating })
    .from(messageFeedback)
    .where(and(eq(messageFeedback.uid, uid), inArray(messageFeedback.messageId, messageIds)));
  return Object.fromEntries(rows.map((row) => [row.messageId, row.rating as Rating]));
}

export interface FeedbackRow {
  messageId: string;
  rating: Rating;
  uid: string;
  model: string | null;
  /** The start of the reply as plain text (its Markdown removed). */
  excerpt: string;
  updatedAt: string;
  /**
   * The rater's latest report of this reply, if they reported it: the only
   * way admins open a user's conversation, audited (docs/decisions/063).
   */
  reportId: string | null;
}

export interface FeedbackFilters {
  rating?: Rating;
  model?: string;
}

const EXCERPT_LENGTH = 280;

/** The most recent ratings, filtered by rating and by model, with an excerpt of each reply, for the admin Feedback page. */
export async function recentFeedback(db: Db, filters: FeedbackFilters = {}, limit = 100): Promise<FeedbackRow[]> {
  const conditions = [
    filters.rating ? eq(messageFeedback.rating, filters.rating) : undefined,
    filters.model ? eq(messages.model, filters.model) : undefined,
  ];
  const rows = await db
    .select({
      messageId: messageFeedback.messageId,
      rating: messageFeedback.rating,
      uid: messageFeedback.uid,
      model: messages.model,
      content: messages.content,
      updatedAt: messageFeedback.updatedAt,
      reportId: sql<string | null>`(
        select ${inboxMessages.id} from ${inboxMessages}
        where ${inboxMessages.kind} = 'report'
          and ${inboxMessages.senderUid} = ${messageFeedback.uid}
          and ${inboxMessages.exchange} ->> 'messageId' = ${messageFeedback.messageId}::text
        order by ${inboxMessages.createdAt} desc
        limit 1
      )`,
    })
    .from(messageFeedback)
    .innerJoin(messages, eq(messages.id, messageFeedback.messageId))
    .where(and(...conditions))
    .orderBy(desc(messageFeedback.updatedAt), desc(messageFeedback.messageId))
    .limit(limit);
  return rows.map((row) => ({
    messageId: row.messageId,
    rating: row.rating as Rating,
    uid: row.uid,
    model: row.model,
    excerpt: plainExcerpt(row.content, EXCERPT_LENGTH),
    updatedAt: row.updatedAt.toISOString(),
    reportId: row.reportId,
  }));
}

/** The models of the rated replies, for the page's model filter. */
export async function ratedModels(db: Db): Promise<string[]> {
  const rows = await db
    .selectDistinct({ model: messages.model })
    .from(messageFeedback)
    .innerJoin(messages, eq(messages.id, messageFeedback.messageId))
    .where(isNotNull(messages.model))
    .orderBy(messages.model);
  return rows.flatMap((row) => (row.model ? [row.model] : []));
}

const feedbackSchema = z.object({
  messageId: z.string().trim().pipe(z.guid("That reply does not exist.")),
  // "none" takes a rating back (clicking the pressed thumb again).
  rating: z.enum(["up", "down", "none"], { error: "Choose 👍, 👎 or none." }),
});

/** The "feedback" intent of /nuvara/<id>: rates one of the owner's replies; anyone else's is a 404. */
export async function feedbackIntent(db: Db, uid: string, conversationId: string, form: FormData) {
  const parsed = feedbackSchema.safeParse({ messageId: form.get("messageId") ?? "", rating: form.get("rating") ?? "" });
  if (!parsed.success) return json({ error: parsed.error.issues[0]?.message ?? "Invalid feedback." }, { status: 400 });
  const { messageId, rating } = parsed.data;
  const value = rating === "up" ? 1 : rating === "down" ? -1 : null;
  if (!(await rateReply(db, uid, conversationId, messageId, value)))
    throw json({ error: "That reply was not found in your conversations." }, { status: 404 });
  return json({ ok: true, rating: value });
}
