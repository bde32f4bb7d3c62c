import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { conversations, importedConversations, importItems, importJobs, messages } from "~/db/schema";
import { formatBytes } from "~/conversation/attachment-types";
import { logBackendFault } from "~/deadline.server";
import { isAccountDeleted, writeForAccount, type Tx } from "../account-lock.server";
import { storageUsed } from "../attachments.server";
import { conversationBytes, type ImportedConversation, type ImportSource, type ReadItem } from "./normalized.server";

/**
 * Imports in the background (docs/decisions/104). An upload becomes a job
 * and its conversations items; a worker in any instance takes up a job whose
 * lease has run out (a new one, or one whose instance stopped) and imports its
 * items in order, each in its own transaction with the item marked done and
 * the job's count raised: after a restart, the next worker goes on from the
 * first item not done, and none is imported twice. A conversation imported
 * before (the same source id, in an earlier upload) is skipped and says so.
 */

export type ImportJobRow = typeof importJobs.$inferSelect;

/** How long a worker holds a job without renewing its lease; a stopped instance's job waits this long. */
export const LEASE_MS = 30_000;
/** How often an idle worker looks for a job to take up. */
const POLL_MS = 2_000;
const ITEMS_PER_READ = 25;
const ITEM_INSERT_BATCH = 100;
const MESSAGE_INSERT_BATCH = 500;

export interface NewImportJob {
  uid: string;
  source: ImportSource;
  fileName: string;
  items: ReadItem[];
  storageLimitBytes: number;
}

/** Stores the upload's conversations as a job to run; those refused as read are counted skipped at once. */
export async function createImportJob(db: Db, job: NewImportJob): Promise<ImportJobRow> {
  const id = randomUUID();
  const skipped = job.items.filter((item) => "skipped" in item).length;
  return writeForAccount(db, job.uid, async (tx) => {
    const [row] = await tx
      .insert(importJobs)
      .values({
        id,
        uid: job.uid,
        source: job.source,
        fileName: job.fileName,
        total: job.items.length,
        skipped,
        storageLimitBytes: job.storageLimitBytes,
      })
      .returning();
    for (let at = 0; at < job.items.length; at += ITEM_INSERT_BATCH) {
      await tx.insert(importItems).values(
        job.items.slice(at, at + ITEM_INSERT_BATCH).map((item, offset) => ({
          jobId: id,
          ordinal: at + offset,
          sourceId: item.sourceId,
          title: item.title,
          conversation: "conversation" in item ? item.conversation : null,
          status: "skipped" in item ? ("skipped" as const) : ("pending" as const),
          reason: "skipped" in item ? item.skipped : null,
        })),
      );
    }
    return row;
  });
}

export interface ImportView {
  id: string;
  source: ImportSource;
  fileName: string;
  status: ImportJobRow["status"];
  total: number;
  imported: number;
  skipped: number;
  message: string | null;
  /** The first conversations skipped, with why. */
  skippedItems: Array<{ title: string; reason: string }>;
  createdAt: string;
}

const SKIPPED_SHOWN = 20;

/** The user's latest import, as the dashboard shows it; null when they never imported. */
export async function latestImport(db: Db, uid: string): Promise<ImportView | null> {
  const [job] = await db
    .select()
    .from(importJobs)
    .where(eq(importJobs.uid, uid))
    .orderBy(desc(importJobs.createdAt))
    .limit(1);
  if (!job) return null;
  const skippedItems = await db
    .select({ title: importItems.title, reason: importItems.reason })
    .from(importItems)
    .where(and(eq(importItems.jobId, job.id), eq(importItems.status, "skipped")))
    .orderBy(asc(importItems.ordinal))
    .limit(SKIPPED_SHOWN);
  return {
    id: job.id,
    source: job.source,
    fileName: job.fileName,
    status: job.status,
    total: job.total,
    imported: job.imported,
    skipped: job.skipped,
    message: job.message,
    skippedItems: skippedItems.map((item) => ({ title: item.title, reason: item.reason ?? "" })),
    createdAt: job.createdAt.toISOString(),
  };
}

/** Whether the user has an import queued or running (one at a time). */
export async function hasUnfinishedImport(db: Db, uid: string): Promise<boolean> {
  const rows = await db
    .select({ id: importJobs.id })
    .from(importJobs)
    .where(and(eq(importJobs.uid, uid), sql`${importJobs.status} in ('queued', 'running')`))
    .limit(1);
  return rows.length > 0;
}

/** Takes up the oldest job nobody holds (new, or its worker's lease ran out), holding it for LEASE_MS. */
export async function claimJob(db: Db): Promise<ImportJobRow | null> {
  const result = await db.execute<{ id: string }>(sql`
    update ${importJobs} set status = 'running', lease_until = now() + make_interval(secs => ${LEASE_MS / 1000})
    where id = (
      select id from ${importJobs}
      where status in ('queued', 'running') and (lease_until is null or lease_until < now())
      order by created_at limit 1
      for update skip locked
    )
    returning id`);
  const id = result.rows[0]?.id;
  if (!id) return null;
  const [row] = await db.select().from(importJobs).where(eq(importJobs.id, id));
  return row ?? null;
}

export interface RunOptions {
  /** Stop after this many items, as if the instance went away (tests of resuming). */
  stopAfter?: number;
  /** Called after each item is done (the benchmark's progress). */
  onItem?: () => void;
}

/** Imports the job's items not done yet, in order; returns how the job stands at the end. */
export async function runJob(db: Db, job: ImportJobRow, options: RunOptions = {}): Promise<ImportJobRow["status"]> {
  let handled = 0;
  for (;;) {
    const items = await db
      .select()
      .from(importItems)
      .where(and(eq(importItems.jobId, job.id), eq(importItems.status, "pending")))
      .orderBy(asc(importItems.ordinal))
      .limit(ITEMS_PER_READ);
    if (items.length === 0) return finish(db, job.id, "done", null);
    for (const item of items) {
      if (options.stopAfter !== undefined && handled >= options.stopAfter) return "running";
      const outcome = await importItemOrSkip(db, job, item);
      handled += 1;
      options.onItem?.();
      if (outcome === "gone") return "failed";
      if (outcome === "full") {
        const [now] = await db.select().from(importJobs).where(eq(importJobs.id, job.id));
        const used = await storageUsed(db, job.uid);
        return finish(
          db,
          job.id,
          "stopped",
          `Your storage is full (${formatBytes(used)} of ${formatBytes(job.storageLimitBytes)}): the import stopped at "${item.title}". ${now?.imported ?? 0} conversations were imported; the other ${(now?.total ?? 0) - (now?.imported ?? 0) - (now?.skipped ?? 0)} were not. Delete chats you no longer need, then import the file again: the chats already imported are skipped.`,
        );
      }
    }
    await db
      .update(importJobs)
      .set({ leaseUntil: sql`now() + make_interval(secs => ${LEASE_MS / 1000})` })
      .where(eq(importJobs.id, job.id));
  }
}

async function finish(db: Db, id: string, status: "done" | "stopped", message: string | null) {
  // The conversations waiting are no longer needed once the job ends: only the skipped ones' reasons stay.
  await db.transaction(async (tx) => {
    await tx
      .update(importJobs)
      .set({ status, message, leaseUntil: null, finishedAt: new Date() })
      .where(eq(importJobs.id, id));
    await tx.update(importItems).set({ conversation: null }).where(eq(importItems.jobId, id));
  });
  return status;
}

type ItemRow = typeof importItems.$inferSelect;

/** One conversation, with its item marked and the job counted, in one transaction. */
async function importItem(db: Db, job: ImportJobRow, item: ItemRow): Promise<"done" | "skipped" | "full" | "gone"> {
  const conversation = item.conversation as ImportedConversation | null;
  try {
    return await writeForAccount(db, job.uid, async (tx) => {
      // The user's imports one at a time against their storage (the lock the uploads take: app/data/attachments.server.ts).
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('attachments'), hashtext(${job.uid}))`);
      const [already] = conversation
        ? await tx
            .select({ id: importedConversations.conversationId })
            .from(importedConversations)
            .where(
              and(
                eq(importedConversations.uid, job.uid),
                eq(importedConversations.source, job.source),
                eq(importedConversations.sourceId, item.sourceId),
              ),
            )
        : [];
      if (!conversation || already) {
        await markItem(
          tx,
          job.id,
          item.ordinal,
          "skipped",
          conversation ? "it was imported before" : "it could not be read",
        );
        return "skipped";
      }
      const bytes = conversationBytes(conversation);
      if ((await storageUsed(tx, job.uid)) + bytes > job.storageLimitBytes) return "full";
      await storeConversation(tx, job, conversation, bytes);
      await markItem(tx, job.id, item.ordinal, "done", null);
      return "done";
    });
  } catch (error) {
    if (isAccountDeleted(error)) return "gone";
    throw error;
  }
}

/**
 * A conversation the database refuses (a value out of its bounds) is skipped
 * and said so, rather than stopping the job; a database that cannot even
 * record that is down, and the job waits for the next worker.
 */
async function importItemOrSkip(db: Db, job: ImportJobRow, item: ItemRow) {
  try {
    return await importItem(db, job, item);
  } catch (error) {
    logBackendFault("postgres", "importing a conversation", error);
    await db.transaction((tx) => markItem(tx, job.id, item.ordinal, "skipped", "it could not be stored"));
    return "skipped" as const;
  }
}

async function markItem(tx: Tx, jobId: string, ordinal: number, status: "done" | "skipped", reason: string | null) {
  await tx
    .update(importItems)
    .set({ status, reason, conversation: null })
    .where(and(eq(importItems.jobId, jobId), eq(importItems.ordinal, ordinal)));
  await tx
    .update(importJobs)
    .set(
      status === "done" ? { imported: sql`${importJobs.imported} + 1` } : { skipped: sql`${importJobs.skipped} + 1` },
    )
    .where(eq(importJobs.id, jobId));
}

/** The conversation with its messages under new ids, in the order given (siblings' order is their stored order). */
async function storeConversation(tx: Tx, job: ImportJobRow, conversation: ImportedConversation, bytes: number) {
  const id = randomUUID();
  const ids = new Map(conversation.messages.map((message) => [message.id, randomUUID()]));
  const fallbackTime = new Date(conversation.createdAt);
  await tx.insert(conversations).values({
    id,
    uid: job.uid,
    title: conversation.title,
    currentLeafId: conversation.currentLeafId ? (ids.get(conversation.currentLeafId) ?? null) : null,
    createdAt: new Date(conversation.createdAt),
    updatedAt: new Date(conversation.updatedAt),
  });
  const rows = conversation.messages.map((message) => ({
    id: ids.get(message.id)!,
    conversationId: id,
    parentId: message.parentId ? (ids.get(message.parentId) ?? null) : null,
    role: message.role,
    parts: [
      ...(message.text ? [{ type: "text", text: message.text }] : []),
      ...message.missing.map((name) => ({ type: "data-missing-attachment", data: { name } })),
    ],
    content: message.text,
    status: message.role === "assistant" ? ("completed" as const) : null,
    createdAt: message.createdAt ? new Date(message.createdAt) : fallbackTime,
    completedAt: message.role === "assistant" && message.createdAt ? new Date(message.createdAt) : null,
  }));
  for (let at = 0; at < rows.length; at += MESSAGE_INSERT_BATCH)
    await tx.insert(messages).values(rows.slice(at, at + MESSAGE_INSERT_BATCH));
  await tx
    .insert(importedConversations)
    .values({ conversationId: id, uid: job.uid, source: job.source, sourceId: conversation.sourceId, bytes });
}

// ---- the worker ------------------------------------------------------------------

let worker: ReturnType<typeof setInterval> | undefined;
let busy = false;

/**
 * Starts this process's worker (once): it looks for a job to take up every
 * POLL_MS and runs one at a time. Started by the pages that show imports and
 * the chat's, so a restarted instance resumes an unfinished job as soon as it
 * serves anyone; `kickImportWorker` starts a new job at once.
 */
export function ensureImportWorker(db: Db) {
  if (worker) return;
  worker = setInterval(() => void kickImportWorker(db), POLL_MS);
  worker.unref?.();
}

export async function kickImportWorker(db: Db): Promise<void> {
  if (busy) return;
  busy = true;
  try {
    for (let job = await claimJob(db); job; job = await claimJob(db)) await runJob(db, job);
  } catch (error) {
    logBackendFault("postgres", "running an import", error);
  } finally {
    busy = false;
  }
}
