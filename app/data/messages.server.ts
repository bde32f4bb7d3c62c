import { and, asc, eq, sql } from "drizzle-orm";
import type { ExchangeKind } from "~/chat/history";
import type { ChatMessage, ReplyStatus } from "~/chat/message-types";
import type { Db } from "~/db/client.server";
import { conversations, messages, quotaReservations, usageDaily } from "~/db/schema";
import { writeForAccount } from "./account-lock.server";

/**
 * A conversation's messages. A user's message is only ever stored together
 * with its reply (completed or stopped), atomically: a conversation
 * never holds a message whose outcome is unknown. A reply that fails stores
 * nothing; the browser keeps the user's text and offers Retry.
 */

export type MessageRow = typeof messages.$inferSelect;

export async function listMessages(db: Db, conversationId: string): Promise<MessageRow[]> {
  return db.select().from(messages).where(eq(messages.conversationId, conversationId)).orderBy(asc(messages.seq));
}

/**
 * The user's conversation with its messages, in one query (ownership checked
 * in SQL); null when the user has no conversation with this id.
 */
export async function getConversationWithMessages(
  db: Db,
  uid: string,
  id: string,
): Promise<{ conversation: typeof conversations.$inferSelect; messages: MessageRow[] } | null> {
  const rows = await db
    .select({ conversation: conversations, message: messages })
    .from(conversations)
    .leftJoin(messages, eq(messages.conversationId, conversations.id))
    .where(and(eq(conversations.id, id), eq(conversations.uid, uid)))
    .orderBy(asc(messages.seq));
  if (rows.length === 0) return null;
  return { conversation: rows[0].conversation, messages: rows.flatMap((row) => (row.message ? [row.message] : [])) };
}

export function toChatMessage(row: MessageRow): ChatMessage {
  return {
    id: row.id,
    role: row.role,
    parts: row.parts as ChatMessage["parts"],
    metadata: {
      model: row.model ?? undefined,
      status: row.status ?? undefined,
      createdAt: row.createdAt.toISOString(),
    },
  };
}


export interface Exchange {
  uid: string;
  conversationId: string;
  /** submit: a new message; edit: new text for the last user message; regenerate: a new reply to it. */
  kind: ExchangeKind;
  user: { id: string; text: string; sentAt: Date };
  reply: {
    id: string;
    parts: ChatMessage["parts"];
    content: string;
    status: ReplyStatus;
    model: string;
    inputTokens: number;
    outputTokens: number;
  };
  /** The UTC day the message counted against (token usage goes there too). */
  usageDay: string;
  /** Title for a conversation that has none yet. */
  title: string;
}

/**
 * Stores an exchange atomically, in one SQL statement (PostgreSQL runs a
 * statement as one transaction, and one round trip keeps the stream's end
 * fast): the user's message (new, or its edited text), the reply that
 * replaces whatever followed it, the conversation's activity, model and
 * title, the day's token usage, and the end of the message's quota
 * reservation. Null when the conversation was deleted meanwhile, or the
 * message is not in it: nothing is stored then.
 */
export async function saveExchange(db: Db, exchange: Exchange): Promise<{ title: string | null } | null> {
  const { reply, user, kind } = exchange;
  const userParts = JSON.stringify([{ type: "text", text: user.text }]);
  // Under the account's lock: a reply still streaming when the account is deleted stores nothing
  // (AccountDeletedError; docs/decisions/045). The statement itself stays one round trip.
  const result = await writeForAccount(db, exchange.uid, (tx) => tx.execute<{ stored: number; title: string | null }>(sql`
    with conversation as (
      -- The row lock serialises exchanges on one conversation (two tabs regenerating keep one reply).
      select id from ${conversations}
      where id = ${exchange.conversationId}::uuid and uid = ${exchange.uid}
      for update
    ),
    anchor as (
      -- Edit and regenerate answer the user's existing message.
      select m.seq from ${messages} m join conversation c on m.conversation_id = c.id
      where m.id = ${user.id}::uuid and m.role = 'user' and ${kind} <> 'submit'
    ),
    edited as (
      update ${messages} set parts = ${userParts}::jsonb, content = ${user.text}
      where id = ${user.id}::uuid and ${kind} = 'edit' and exists (select 1 from anchor)
      returning id
    ),
    replaced as (
      delete from ${messages}
      where conversation_id in (select id from conversation) and seq > (select seq from anchor)
      returning id
    ),
    inserted as (
      -- One INSERT in this order, so the user's message gets the lower seq.
      insert into ${messages}
        (id, conversation_id, role, parts, content, status, model, input_tokens, output_tokens, created_at, completed_at)
      select row.id, c.id, row.role, row.parts, row.content, row.status, row.model, row.input_tokens, row.output_tokens, row.created_at, row.completed_at
      from conversation c
      cross join (values
        (1, ${user.id}::uuid, 'user', ${userParts}::jsonb, ${user.text}, null::text, null::text, null::int, null::int, ${user.sentAt.toISOString()}::timestamptz, null::timestamptz),
        (2, ${reply.id}::uuid, 'assistant', ${JSON.stringify(reply.parts)}::jsonb, ${reply.content}, ${reply.status}, ${reply.model}, ${reply.inputTokens}::int, ${reply.outputTokens}::int, now(), now())
      ) as row(ord, id, role, parts, content, status, model, input_tokens, output_tokens, created_at, completed_at)
      where (row.ord = 1 and ${kind} = 'submit') or (row.ord = 2 and (${kind} = 'submit' or exists (select 1 from anchor)))
      order by row.ord
      returning role
    ),
    touched as (
      update ${conversations} set updated_at = now(), model = ${reply.model}, title = coalesce(title, ${exchange.title})
      where id in (select id from conversation) and exists (select 1 from inserted where role = 'assistant')
      returning title
    ),
    settled as (
      -- The message's quota reservation is settled: it stays counted (app/data/quotas.server.ts).
      delete from ${quotaReservations}
      where uid = ${exchange.uid} and message_id = ${user.id}::uuid
        and exists (select 1 from inserted where role = 'assistant')
      returning 1
    ),
    usage as (
      insert into ${usageDaily} (uid, day, messages, input_tokens, output_tokens)
      select ${exchange.uid}, ${exchange.usageDay}::date, 0, ${reply.inputTokens}::bigint, ${reply.outputTokens}::bigint
      where exists (select 1 from inserted where role = 'assistant')
      on conflict (uid, day) do update set
        input_tokens = ${usageDaily.inputTokens} + excluded.input_tokens,
        output_tokens = ${usageDaily.outputTokens} + excluded.output_tokens
      returning 1
    )
    select (select count(*) from inserted where role = 'assistant')::int as stored, (select title from touched) as title
  `));
  const row = result.rows[0];
  return row && Number(row.stored) === 1 ? { title: row.title } : null;
}
