import { and, asc, eq, sql } from "drizzle-orm";
import { branchPath, latestLeaf } from "~/conversation/branches";
import { userParts, type ExchangeKind } from "~/conversation/history";
import type { AttachmentRef } from "~/conversation/attachment-types";
import type { ChatMessage, ReplyStatus } from "~/conversation/message-types";
import type { Db } from "~/db/client.server";
import {
  attachments,
  conversations,
  messages,
  modelUsageDaily,
  projects,
  quotaReservations,
  usageDaily,
} from "~/db/schema";
import { writeForAccount } from "./account-lock.server";

/**
 * A conversation's messages, a tree of branches (docs/decisions/069). A
 * user's message is only ever stored together with its reply (completed or
 * stopped), atomically: a conversation never holds a message whose outcome is unknown. A reply that fails stores
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
      parentId: row.parentId,
    },
  };
}

export interface Exchange {
  uid: string;
  conversationId: string;
  /** submit: a new message and its reply; regenerate: a new version of the reply to the user's stored message. */
  kind: ExchangeKind;
  /**
   * submit: the reply the new message follows, null for a first message (a
   * new root: the first message edited); left out, after the branch shown.
   */
  parentId?: string | null;
  user: { id: string; text: string; sentAt: Date; attachments?: AttachmentRef[] };
  reply: {
    id: string;
    parts: ChatMessage["parts"];
    content: string;
    status: ReplyStatus;
    model: string;
    inputTokens: number;
    outputTokens: number;
    /** At LLM_MODEL_PRICES (docs/decisions/072); 0 when unpriced. */
    costMicroUsd?: number;
  };
  /** The UTC day the message counted against (token usage goes there too). */
  usageDay: string;
  /** The sender's role key, kept with the day's usage (the admin usage page's per-plan figures). */
  role?: string;
  /** Title for a conversation that has none yet. */
  title: string;
  /**
   * A new chat: the conversation is created with this exchange, in its
   * transaction, so a send that fails leaves no empty conversation behind
   * (docs/decisions/033). Nothing is created when the id exists already.
   */
  create?: {
    systemPrompt: string | null;
    customInstructions: string | null;
    title: string | null;
    /** A temporary chat (docs/decisions/085): never listed, titled by a model, exported or shared. */
    temporary?: boolean;
    /** The user's project it is started in (docs/decisions/106). */
    projectId?: string;
  };
  /**
   * The tools switched off for this chat, as the request chose them (the
   * composer's tools menu): kept as the conversation's choice. Left out: the
   * stored choice stays.
   */
  toolsOff?: string[];
  /** Stopped before anything was shown: the message's quota unit is given back (docs/decisions/044). */
  refund?: boolean;
}

/**
 * Stores an exchange atomically, in one SQL statement (PostgreSQL runs a
 * statement as one transaction, and one round trip keeps the stream's end
 * fast): the user's message (new, under its parent) and its reply, or a new
 * version of the reply beside the earlier ones (nothing is replaced:
 * docs/decisions/069); the branch shown, the conversation's activity, model
 * and title, the day's token usage (per user and per model), and the end of the message's quota
 * reservation. Null when the conversation was deleted meanwhile, or the
 * message (or parent) is not in it: nothing is stored then.
 */
export async function saveExchange(db: Db, exchange: Exchange): Promise<{ title: string | null } | null> {
  const { reply, user, kind } = exchange;
  const storedUserParts = JSON.stringify(userParts(user.text, user.attachments));
  const attachmentIds = (user.attachments ?? []).map((file) => file.id);
  // Under the account's lock: a reply still streaming when the account is deleted stores nothing
  // (AccountDeletedError; docs/decisions/045). The statement itself stays one round trip.
  const refund = exchange.refund ? 1 : 0;
  const afterShown = exchange.parentId === undefined;
  const parentId = exchange.parentId ?? null;
  const result = await writeForAccount(db, exchange.uid, async (tx) => {
    if (exchange.create) {
      // A statement's CTEs share one snapshot: the row must exist before the exchange's statement sees it.
      await tx
        .insert(conversations)
        .values({
          id: exchange.conversationId,
          uid: exchange.uid,
          title: exchange.create.title,
          systemPrompt: emptyToNull(exchange.create.systemPrompt),
          customInstructions: emptyToNull(exchange.create.customInstructions),
          model: reply.model,
          temporary: exchange.create.temporary ?? false,
          // Checked again as it is stored: only the user's own project, and none if it was deleted meanwhile.
          projectId: exchange.create.projectId
            ? sql`(select id from ${projects} where id = ${exchange.create.projectId}::uuid and uid = ${exchange.uid})`
            : null,
          toolsOff: exchange.toolsOff?.length ? exchange.toolsOff : null,
        })
        .onConflictDoNothing({ target: conversations.id });
    }
    return tx.execute<{ stored: number; title: string | null }>(sql`
    with conversation as (
      -- The row lock serialises exchanges on one conversation (two tabs sending keep a consistent leaf).
      select id, current_leaf_id from ${conversations}
      where id = ${exchange.conversationId}::uuid and uid = ${exchange.uid}
      for update
    ),
    anchor as (
      -- A regenerated reply answers the user's stored message.
      select m.id from ${messages} m join conversation c on m.conversation_id = c.id
      where m.id = ${user.id}::uuid and m.role = 'user' and ${kind} = 'regenerate'
    ),
    parent as (
      -- A new message follows a reply of this conversation (or none: a first message).
      select case when ${afterShown} then coalesce(
          (select m.id from ${messages} m join conversation c on m.id = c.current_leaf_id and m.conversation_id = c.id),
          (select m.id from ${messages} m join conversation c on m.conversation_id = c.id order by m.seq desc limit 1))
        else ${parentId}::uuid end as id
      where ${kind} = 'submit'
    ),
    placed as (
      select p.id from parent p
      where p.id is null or exists (
        select 1 from ${messages} m join conversation c on m.conversation_id = c.id where m.id = p.id and m.role = 'assistant')
    ),
    inserted as (
      -- One INSERT in this order, so the user's message gets the lower seq (the parent key is checked at the statement's end).
      insert into ${messages}
        (id, conversation_id, parent_id, role, parts, content, status, model, input_tokens, output_tokens, cost_micro_usd, created_at, completed_at)
      select row.id, c.id, row.parent_id, row.role, row.parts, row.content, row.status, row.model, row.input_tokens, row.output_tokens, row.cost_micro_usd, row.created_at, row.completed_at
      from conversation c
      cross join (values
        (1, ${user.id}::uuid, (select id from placed), 'user', ${storedUserParts}::jsonb, ${user.text}, null::text, null::text, null::int, null::int, 0::bigint, ${user.sentAt.toISOString()}::timestamptz, null::timestamptz),
        (2, ${reply.id}::uuid, ${user.id}::uuid, 'assistant', ${JSON.stringify(reply.parts)}::jsonb, ${reply.content}, ${reply.status}, ${reply.model}, ${reply.inputTokens}::int, ${reply.outputTokens}::int, ${reply.costMicroUsd ?? 0}::bigint, now(), now())
      ) as row(ord, id, parent_id, role, parts, content, status, model, input_tokens, output_tokens, cost_micro_usd, created_at, completed_at)
      where exists (select 1 from placed) or exists (select 1 from anchor) and row.ord = 2
      order by row.ord
      returning role
    ),
    touched as (
      -- The new reply is the branch shown.
      update ${conversations} set updated_at = now(), model = ${reply.model}, title = coalesce(title, ${exchange.title}),
        current_leaf_id = ${reply.id}::uuid, tools_off = ${chosenToolsOff(exchange.toolsOff)}
      where id in (select id from conversation) and exists (select 1 from inserted where role = 'assistant')
      returning title
    ),
    linked as (
      -- The files sent with a new message become its own (and go with it); until then they waited in the composer.
      update ${attachments} set message_id = ${user.id}::uuid
      where uid = ${exchange.uid} and message_id is null
        and id = any(${
          attachmentIds.length > 0
            ? sql`array[${sql.join(
                attachmentIds.map((id) => sql`${id}::uuid`),
                sql`, `,
              )}]`
            : sql`array[]::uuid[]`
        })
        and exists (select 1 from inserted where role = 'user')
      returning 1
    ),
    settled as (
      -- The message's quota reservation is settled: it stays counted (app/data/quotas.server.ts).
      delete from ${quotaReservations}
      where uid = ${exchange.uid} and message_id = ${user.id}::uuid
        and exists (select 1 from inserted where role = 'assistant')
      returning 1
    ),
    usage as (
      insert into ${usageDaily} (uid, day, messages, input_tokens, output_tokens, cost_micro_usd, role)
      select ${exchange.uid}, ${exchange.usageDay}::date, 0, ${reply.inputTokens}::bigint, ${reply.outputTokens}::bigint, ${reply.costMicroUsd ?? 0}::bigint, ${exchange.role ?? ""}
      where exists (select 1 from inserted where role = 'assistant')
      on conflict (uid, day) do update set
        -- A refund takes back the unit only if this message still held its claim (no double refund).
        messages = greatest(${usageDaily.messages} - case when exists (select 1 from settled) then ${refund}::int else 0 end, 0),
        input_tokens = ${usageDaily.inputTokens} + excluded.input_tokens,
        output_tokens = ${usageDaily.outputTokens} + excluded.output_tokens,
        cost_micro_usd = ${usageDaily.costMicroUsd} + excluded.cost_micro_usd,
        role = case when excluded.role = '' then ${usageDaily.role} else excluded.role end
      returning 1
    ),
    per_model as (
      -- The day's replies per model, as the reply's created_at (now()) falls: /admin/usage reads these (docs/decisions/102).
      insert into ${modelUsageDaily} (day, model, replies, input_tokens, output_tokens, cost_micro_usd)
      select (now() at time zone 'UTC')::date, ${reply.model}, 1, ${reply.inputTokens}::bigint, ${reply.outputTokens}::bigint, ${reply.costMicroUsd ?? 0}::bigint
      where exists (select 1 from inserted where role = 'assistant')
      on conflict (day, model) do update set
        replies = ${modelUsageDaily.replies} + 1,
        input_tokens = ${modelUsageDaily.inputTokens} + excluded.input_tokens,
        output_tokens = ${modelUsageDaily.outputTokens} + excluded.output_tokens,
        cost_micro_usd = ${modelUsageDaily.costMicroUsd} + excluded.cost_micro_usd
      returning 1
    )
    select (select count(*) from inserted where role = 'assistant')::int as stored, (select title from touched) as title
  `);
  });
  const row = result.rows[0];
  return row && Number(row.stored) === 1 ? { title: row.title } : null;
}

/**
 * Shows another branch: the deepest message under `messageId` (following the
 * latest version at each step) becomes the conversation's leaf. False when
 * the user has no such conversation or the message is not in it.
 */
export async function showBranch(db: Db, uid: string, conversationId: string, messageId: string): Promise<boolean> {
  const nodes = await db
    .select({ id: messages.id, parentId: messages.parentId })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(and(eq(conversations.id, conversationId), eq(conversations.uid, uid)))
    .orderBy(asc(messages.seq));
  if (!nodes.some((node) => node.id === messageId)) return false;
  const rows = await db
    .update(conversations)
    .set({ currentLeafId: latestLeaf(nodes, messageId) })
    .where(and(eq(conversations.id, conversationId), eq(conversations.uid, uid)))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/** The branch shown, root first (docs/decisions/069). */
export function shownBranch(conversation: { currentLeafId: string | null }, rows: MessageRow[]): MessageRow[] {
  return branchPath(rows, conversation.currentLeafId);
}

function emptyToNull(text: string | null | undefined): string | null {
  return text && text.trim() !== "" ? text : null;
}

/** The chat's tools switched off as a request chose them, or the stored choice when it chose none. */
function chosenToolsOff(ids: readonly string[] | undefined) {
  if (!ids) return sql.raw("tools_off");
  return ids.length > 0
    ? sql`array[${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}]::text[]`
    : sql`null`;
}
