import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { conversations, memories, userPreferences } from "~/db/schema";
import { writeForAccount, type Tx } from "./account-lock.server";
import { MAX_MEMORIES, MEMORY_FULL, memoryTextProblem } from "./memory-rules";

/**
 * Memory across chats (docs/decisions/103): the facts the assistant keeps
 * about a user, saved by the model's `remember` tool or by the user on their
 * memory page, and the user's switch for it (user_preferences.memory_enabled).
 */

export interface MemoryView {
  id: string;
  text: string;
  source: "model" | "user";
  /** The chat the model saved it in, while that chat exists (and is not a temporary one). */
  conversation: { id: string; title: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

/** Every memory of the user, the latest changed first. */
export async function listMemories(db: Db, uid: string): Promise<MemoryView[]> {
  const rows = await db
    .select({
      id: memories.id,
      text: memories.text,
      source: memories.source,
      conversationId: conversations.id,
      title: conversations.title,
      createdAt: memories.createdAt,
      updatedAt: memories.updatedAt,
    })
    .from(memories)
    .leftJoin(
      conversations,
      and(
        eq(conversations.id, memories.conversationId),
        eq(conversations.uid, uid),
        eq(conversations.temporary, false),
      ),
    )
    .where(eq(memories.uid, uid))
    .orderBy(desc(memories.updatedAt), desc(memories.createdAt));
  return rows.map((row) => ({
    id: row.id,
    text: row.text,
    source: row.source,
    conversation: row.conversationId ? { id: row.conversationId, title: row.title } : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}

export type MemoryWrite = { ok: true; id: string; text: string } | { ok: false; error: string };

/** Advisory locks are one key space per database: this first key names memory's (the second is the uid's hash). */
const MEMORY_LOCK_SPACE = 74_210_103;

/**
 * Writes under the account's lock (nothing for a deleted account,
 * docs/decisions/045) and this user's memory lock, so two saves at once
 * cannot both take the last free place.
 */
function writeMemories<T>(db: Db, uid: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return writeForAccount(db, uid, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MEMORY_LOCK_SPACE}, hashtext(${uid}))`);
    return work(tx);
  });
}

/**
 * Saves a memory, within the bounds. The same text saved again (in any case)
 * is not kept twice: the existing memory counts as new again.
 */
export async function addMemory(
  db: Db,
  uid: string,
  input: { text: string; source: "model" | "user"; conversationId?: string | null },
): Promise<MemoryWrite> {
  const problem = memoryTextProblem(input.text);
  if (problem) return { ok: false, error: problem };
  const text = input.text.trim();
  return writeMemories(db, uid, async (tx) => {
    const [same] = await tx
      .update(memories)
      .set({ updatedAt: sql`now()` })
      .where(and(eq(memories.uid, uid), sql`lower(${memories.text}) = lower(${text})`))
      .returning({ id: memories.id });
    if (same) return { ok: true, id: same.id, text };
    const [{ count }] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(memories)
      .where(eq(memories.uid, uid));
    if (count >= MAX_MEMORIES) return { ok: false, error: MEMORY_FULL };
    const [row] = await tx
      .insert(memories)
      .values({ uid, text, source: input.source, conversationId: input.conversationId ?? null })
      .returning({ id: memories.id });
    return { ok: true, id: row.id, text };
  });
}

/** Changes a memory's text; false when the user has no such memory. */
export async function updateMemory(db: Db, uid: string, id: string, text: string): Promise<MemoryWrite> {
  const problem = memoryTextProblem(text);
  if (problem) return { ok: false, error: problem };
  const trimmed = text.trim();
  const rows = await writeMemories(db, uid, (tx) =>
    tx
      .update(memories)
      .set({ text: trimmed, updatedAt: sql`now()` })
      .where(and(eq(memories.uid, uid), eq(memories.id, id)))
      .returning({ id: memories.id }),
  );
  return rows.length > 0 ? { ok: true, id, text: trimmed } : { ok: false, error: MEMORY_GONE };
}

export const MEMORY_GONE = "This memory no longer exists: it may have been deleted in another tab.";

export async function deleteMemory(db: Db, uid: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(memories)
    .where(and(eq(memories.uid, uid), eq(memories.id, id)))
    .returning({ id: memories.id });
  return rows.length > 0;
}

/**
 * Deletes the memory the model names: the one with this text (in any case),
 * else the only one containing it. The deleted texts; none when it is unclear.
 */
export async function forgetMemory(db: Db, uid: string, text: string): Promise<string[]> {
  const wanted = text.trim().toLowerCase();
  if (!wanted) return [];
  return writeMemories(db, uid, async (tx) => {
    const found = await tx
      .select({ id: memories.id, text: memories.text })
      .from(memories)
      .where(and(eq(memories.uid, uid), sql`strpos(lower(${memories.text}), ${wanted}) > 0`));
    const exact = found.filter((row) => row.text.toLowerCase() === wanted);
    const chosen = exact.length > 0 ? exact : found.length === 1 ? found : [];
    for (const row of chosen) await tx.delete(memories).where(eq(memories.id, row.id));
    return chosen.map((row) => row.text);
  });
}

/** Whether the user has memory on (it is, until they turn it off). */
export async function getMemoryEnabled(db: Db, uid: string): Promise<boolean> {
  const [row] = await db
    .select({ enabled: userPreferences.memoryEnabled })
    .from(userPreferences)
    .where(eq(userPreferences.uid, uid))
    .limit(1);
  return row?.enabled ?? true;
}

export async function setMemoryEnabled(db: Db, uid: string, enabled: boolean): Promise<void> {
  await writeForAccount(db, uid, (tx) =>
    tx
      .insert(userPreferences)
      .values({ uid, memoryEnabled: enabled })
      .onConflictDoUpdate({ target: userPreferences.uid, set: { memoryEnabled: enabled, updatedAt: sql`now()` } }),
  );
}

/** A memory as a reply is given it. */
export interface RecalledMemory {
  id: string;
  text: string;
}

/** How many memories the chat's context reads at most, before the prompt's budget picks from them. */
const RECALL_CANDIDATES = 40;

/**
 * A subquery for the chat's context (app/data/chat-context.server.ts): the
 * user's memories as a JSON array, the most relevant to the message first
 * (full-text rank against its words, any of them), then the latest changed;
 * empty when memory is off or the chat is a temporary one. Nothing is read then.
 */
export function recalledMemoriesSql(uid: string, messageText: string, conversationId: string, temporary: boolean) {
  if (temporary) return sql<RecalledMemory[]>`'[]'::json`;
  return sql<RecalledMemory[]>`(select coalesce(json_agg(json_build_object('id', m.id, 'text', m.text)
      order by m.rank desc nulls last, m.updated_at desc), '[]'::json)
    from (
      select ${memories.id} as id, ${memories.text} as text, ${memories.updatedAt} as updated_at,
        ts_rank(to_tsvector('english', ${memories.text}), q.query) as rank
      from ${memories}, (
        select to_tsquery('english', string_agg(quote_literal(lexeme), ' | ')) as query
        from unnest(tsvector_to_array(to_tsvector('english', ${messageText}))) as lexeme
      ) q
      where ${memories.uid} = ${uid}
        and coalesce((select ${userPreferences.memoryEnabled} from ${userPreferences} where ${userPreferences.uid} = ${uid}), true)
        and not exists (select 1 from ${conversations} c where c.id = ${conversationId}::uuid and c.temporary)
      order by rank desc nulls last, ${memories.updatedAt} desc
      limit ${RECALL_CANDIDATES}
    ) m)`;
}

/** The user's memory switch, for the chat's context. */
export function memoryEnabledSql(uid: string) {
  return sql<boolean>`coalesce((select ${userPreferences.memoryEnabled} from ${userPreferences}
    where ${userPreferences.uid} = ${uid}), true)`;
}
