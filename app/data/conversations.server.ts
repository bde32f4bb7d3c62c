import { randomUUID } from "node:crypto";
import { and, desc, eq, exists, ilike, or, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { conversations, messages } from "~/db/schema";
import { writeForAccount } from "./account-lock.server";

/**
 * Conversations, always looked up by id AND owner: another user's
 * conversation is indistinguishable from one that does not exist.
 */

export type ConversationRow = typeof conversations.$inferSelect;

export interface ConversationSummary {
  id: string;
  title: string | null;
  updatedAt: Date;
}

export const MAX_TITLE_LENGTH = 120;

export interface NewConversation {
  uid: string;
  /** A UUID chosen by the caller (the browser for a new chat); random when omitted. */
  id?: string;
  title?: string | null;
  systemPrompt?: string | null;
  /** The user's custom instructions at creation; later edits apply to new chats only. */
  customInstructions?: string | null;
  model?: string | null;
}

/**
 * Creates a conversation (for imports, copies and tests). A chat's own
 * conversation is created with its first exchange (saveExchange).
 */
export async function createConversation(db: Db, input: NewConversation): Promise<ConversationRow> {
  // Under the account's lock: nothing is created for a deleted account (AccountDeletedError, docs/decisions/045).
  const [row] = await writeForAccount(db, input.uid, (tx) =>
    tx
      .insert(conversations)
      .values({
        id: input.id ?? randomUUID(),
        uid: input.uid,
        title: input.title ?? null,
        systemPrompt: emptyToNull(input.systemPrompt),
        customInstructions: emptyToNull(input.customInstructions),
        model: input.model ?? null,
      })
      .returning(),
  );
  return row;
}

export async function getConversation(db: Db, uid: string, id: string): Promise<ConversationRow | null> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.uid, uid)))
    .limit(1);
  return row ?? null;
}

/** `%`, `_` and `\` typed by the user are literal characters, not wildcards. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The user's conversations, most recently active first; with `search`, only
 * those whose title or any message contains it (case-insensitive). Scoped to
 * one user's rows through the (uid, updated_at) index, so a substring match
 * stays cheap without a trigram index.
 */
export async function listConversations(
  db: Db,
  uid: string,
  { search, limit = 200 }: { search?: string; limit?: number } = {},
): Promise<ConversationSummary[]> {
  const query = search?.trim();
  const matches = query
    ? or(
        ilike(conversations.title, containsPattern(query)),
        exists(
          db
            .select({ one: sql`1` })
            .from(messages)
            .where(and(eq(messages.conversationId, conversations.id), ilike(messages.content, containsPattern(query)))),
        ),
      )
    : undefined;
  return db
    .select({ id: conversations.id, title: conversations.title, updatedAt: conversations.updatedAt })
    .from(conversations)
    .where(and(eq(conversations.uid, uid), matches))
    .orderBy(desc(conversations.updatedAt))
    .limit(limit);
}

/** Renames; false when the user has no such conversation. */
export async function renameConversation(db: Db, uid: string, id: string, title: string): Promise<boolean> {
  const rows = await db
    .update(conversations)
    .set({ title })
    .where(and(eq(conversations.id, id), eq(conversations.uid, uid)))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

export async function setConversationModel(db: Db, uid: string, id: string, model: string): Promise<boolean> {
  const rows = await db
    .update(conversations)
    .set({ model })
    .where(and(eq(conversations.id, id), eq(conversations.uid, uid)))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/** Deletes the conversation and its messages; false when the user has no such conversation. */
export async function deleteConversation(db: Db, uid: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.uid, uid)))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

function emptyToNull(text: string | null | undefined): string | null {
  return text && text.trim() !== "" ? text : null;
}

/**
 * Replaces a title only while it is still `expected` (the one it was given
 * when the chat was stored): a rename in the meantime always wins. Returns
 * the title the conversation has now (null: no such conversation).
 */
export async function replaceTitleIfUnchanged(
  db: Db,
  uid: string,
  id: string,
  expected: string,
  title: string,
): Promise<{ title: string | null; replaced: boolean } | null> {
  const rows = await db
    .update(conversations)
    .set({ title })
    .where(and(eq(conversations.id, id), eq(conversations.uid, uid), eq(conversations.title, expected)))
    .returning({ title: conversations.title });
  if (rows.length > 0) return { title, replaced: true };
  const current = await getConversation(db, uid, id);
  return current ? { title: current.title, replaced: false } : null;
}
