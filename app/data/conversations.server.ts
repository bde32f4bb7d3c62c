import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, exists, ilike, inArray, isNotNull, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { conversationFolders, conversations, messages } from "~/db/schema";
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
  pinned: boolean;
  archived: boolean;
  folderId: string | null;
  /** The project it belongs to (docs/decisions/106). */
  projectId: string | null;
}

/** Which of the user's chats a list shows: the ones in use, or the archived ones (docs/decisions/085). */
export type ConversationView = "active" | "archived";

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
  temporary?: boolean;
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
        temporary: input.temporary ?? false,
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
 * A message's text contains `text` (case-insensitive). The trigram index
 * messages_content_trgm_idx serves this very condition (docs/decisions/102):
 * a rare word reads only the messages that hold it, not every message of the user.
 */
export function messageContains(text: string): SQL {
  return ilike(messages.content, containsPattern(text));
}

/**
 * The user's conversations, most recently active first, at most `limit`; with
 * `search`, only those whose title or any message contains it
 * (case-insensitive), archived ones included (marked). Without it, the
 * view's: those in use, or the archived ones. A temporary chat is never
 * listed nor found (docs/decisions/085). Read in the (uid, updated_at)
 * index's order up to the limit; the planner tests each chat's messages
 * through messages_conversation_seq_idx when the words are common, or first
 * gathers the few messages that hold rare ones through the trigram index
 * (docs/decisions/102).
 */
export async function listConversations(
  db: Db,
  uid: string,
  { search, view = "active", limit = 200 }: { search?: string; view?: ConversationView; limit?: number } = {},
): Promise<ConversationSummary[]> {
  const query = search?.trim();
  const inView = query
    ? undefined
    : view === "archived"
      ? isNotNull(conversations.archivedAt)
      : isNull(conversations.archivedAt);
  const matches = query
    ? or(
        ilike(conversations.title, containsPattern(query)),
        exists(
          db
            .select({ one: sql`1` })
            .from(messages)
            .where(and(eq(messages.conversationId, conversations.id), messageContains(query))),
        ),
      )
    : undefined;
  const rows = await db
    .select({
      id: conversations.id,
      title: conversations.title,
      updatedAt: conversations.updatedAt,
      pinnedAt: conversations.pinnedAt,
      archivedAt: conversations.archivedAt,
      folderId: conversations.folderId,
      projectId: conversations.projectId,
    })
    .from(conversations)
    .where(and(eq(conversations.uid, uid), eq(conversations.temporary, false), inView, matches))
    .orderBy(desc(conversations.updatedAt))
    .limit(limit);
  return rows.map(({ pinnedAt, archivedAt, ...row }) => ({
    ...row,
    pinned: pinnedAt !== null,
    archived: archivedAt !== null,
  }));
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

/**
 * One tool switched off (or on again) for this chat only; the chat's list of
 * tools off after the change, "full" when `max` are off already, null when
 * the user has no such conversation. One statement: two tabs' changes both count.
 */
export async function setConversationToolOff(
  db: Db,
  uid: string,
  id: string,
  toolId: string,
  off: boolean,
  max: number,
): Promise<string[] | "full" | null> {
  const current = sql`coalesce(${conversations.toolsOff}, '{}'::text[])`;
  const next = off
    ? sql`case when ${toolId} = any(${current}) then ${current} else array_append(${current}, ${toolId}::text) end`
    : sql`array_remove(${current}, ${toolId}::text)`;
  const rows = await db
    .update(conversations)
    // An empty list is stored as null: none switched off.
    .set({ toolsOff: sql`nullif(${next}, '{}'::text[])` })
    .where(
      and(
        eq(conversations.id, id),
        eq(conversations.uid, uid),
        off ? sql`(${toolId} = any(${current}) or cardinality(${current}) < ${max})` : sql`true`,
      ),
    )
    .returning({ toolsOff: conversations.toolsOff });
  if (rows.length > 0) return rows[0].toolsOff ?? [];
  if (!off) return null;
  // Nothing changed: the list is full, or there is no such conversation.
  const [found] = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.uid, uid)));
  return found ? "full" : null;
}

/** Deletes the conversation and its messages; false when the user has no such conversation. */
export async function deleteConversation(db: Db, uid: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.uid, uid)))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/** The conversation is one of the user's. */
const owned = (uid: string, id: string) => and(eq(conversations.id, id), eq(conversations.uid, uid));

/** Pins or unpins; false when the user has no such conversation. */
export async function setPinned(db: Db, uid: string, id: string, pinned: boolean): Promise<boolean> {
  const rows = await db
    .update(conversations)
    .set({ pinnedAt: pinned ? sql`now()` : null })
    .where(owned(uid, id))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/** Archives or restores the user's conversations among `ids`; how many were changed. */
export async function setArchived(db: Db, uid: string, ids: string[], archived: boolean): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db
    .update(conversations)
    .set({ archivedAt: archived ? sql`now()` : null })
    .where(and(eq(conversations.uid, uid), inArray(conversations.id, ids)))
    .returning({ id: conversations.id });
  return rows.length;
}

/** Deletes the user's conversations among `ids` with their messages; how many were deleted. */
export async function deleteConversations(db: Db, uid: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db
    .delete(conversations)
    .where(and(eq(conversations.uid, uid), inArray(conversations.id, ids)))
    .returning({ id: conversations.id });
  return rows.length;
}

/**
 * Files the conversation in one of the user's folders (null: out of any).
 * False when the user has no such conversation or no such folder.
 */
export async function moveToFolder(db: Db, uid: string, id: string, folderId: string | null): Promise<boolean> {
  const folderIsTheirs = folderId
    ? exists(
        db
          .select({ one: sql`1` })
          .from(conversationFolders)
          .where(and(eq(conversationFolders.id, folderId), eq(conversationFolders.uid, uid))),
      )
    : undefined;
  const rows = await db
    .update(conversations)
    .set({ folderId })
    .where(and(owned(uid, id), folderIsTheirs))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/**
 * Deletes a temporary chat, as its page is left; false when the user has no
 * such temporary chat (an ordinary one is never deleted this way).
 */
export async function deleteTemporaryConversation(db: Db, uid: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(conversations)
    .where(and(owned(uid, id), eq(conversations.temporary, true)))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/** Temporary chats are kept at most this long, for a page left without a word (a crash, a lost network). */
export const TEMPORARY_CHAT_HOURS = 24;

/** Deletes every temporary chat made before `now` less TEMPORARY_CHAT_HOURS; how many. */
export async function sweepTemporaryConversations(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - TEMPORARY_CHAT_HOURS * 3_600_000);
  const rows = await db
    .delete(conversations)
    .where(and(eq(conversations.temporary, true), lt(conversations.createdAt, before)))
    .returning({ id: conversations.id });
  return rows.length;
}

// ---- folders ----------------------------------------------------------------------

export const MAX_FOLDER_NAME_LENGTH = 60;

export interface FolderSummary {
  id: string;
  name: string;
}

/** The user's folders, oldest first (the order they were made in). */
export async function listFolders(db: Db, uid: string): Promise<FolderSummary[]> {
  return db
    .select({ id: conversationFolders.id, name: conversationFolders.name })
    .from(conversationFolders)
    .where(eq(conversationFolders.uid, uid))
    .orderBy(asc(conversationFolders.createdAt), asc(conversationFolders.name));
}

export async function createFolder(db: Db, uid: string, name: string): Promise<FolderSummary> {
  const [row] = await writeForAccount(db, uid, (tx) =>
    tx
      .insert(conversationFolders)
      .values({ id: randomUUID(), uid, name })
      .returning({ id: conversationFolders.id, name: conversationFolders.name }),
  );
  return row;
}

/** Renames; false when the user has no such folder. */
export async function renameFolder(db: Db, uid: string, id: string, name: string): Promise<boolean> {
  const rows = await db
    .update(conversationFolders)
    .set({ name })
    .where(and(eq(conversationFolders.id, id), eq(conversationFolders.uid, uid)))
    .returning({ id: conversationFolders.id });
  return rows.length > 0;
}

/** Deletes the folder; its chats are kept, back among the loose ones (on delete set null). */
export async function deleteFolder(db: Db, uid: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(conversationFolders)
    .where(and(eq(conversationFolders.id, id), eq(conversationFolders.uid, uid)))
    .returning({ id: conversationFolders.id });
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
