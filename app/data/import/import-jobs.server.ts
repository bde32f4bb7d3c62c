import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
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
/** Conversations imported in one transaction (the progress moves by this much). */
const ITEMS_PER_BATCH = 25;
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

/**
 * Takes up the oldest job nobody holds (new, or its worker's lease ran out),
 * holding it for LEASE_MS; `only`: that job alone (tests).
 */
export async function claimJob(db: Db, only?: string): Promise<ImportJobRow | null> {
  const result = await db.execute<{ id: string }>(sql`
    update ${importJobs} set status = 'running', lease_until = now() + make_interval(secs => ${LEASE_MS / 1000})
    where id = (
      select id from ${importJobs}
      where status in ('queued', 'running') and (lease_until is null or lease_until < now())
        and (${only ?? null}::uuid is null or id = ${only ?? null}::uuid)
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
    const room =
      options.stopAfter === undefined ? ITEMS_PER_BATCH : Math.min(ITEMS_PER_BATCH, options.stopAfter - handled);
    if (room <= 0) return "running";
    const items = await db
      .select()
      .from(importItems)
      .where(and(eq(importItems.jobId, job.id), eq(importItems.status, "pending")))
      .orderBy(asc(importItems.ordinal))
      .limit(room);
    if (items.length === 0) return finish(db, job.id, "done", null);
    const outcome = await importBatchOrEach(db, job, items);
    handled += outcome.handled;
    for (let i = 0; i < outcome.handled; i += 1) options.onItem?.();
    if (outcome.gone) return "failed";
    if (outcome.full) return stopForStorage(db, job, outcome.full);
    await db
      .update(importJobs)
      .set({ leaseUntil: sql`now() + make_interval(secs => ${LEASE_MS / 1000})` })
      .where(eq(importJobs.id, job.id));
  }
}

async function stopForStorage(db: Db, job: ImportJobRow, at: ItemRow) {
  const [now] = await db.select().from(importJobs).where(eq(importJobs.id, job.id));
  const used = await storageUsed(db, job.uid);
  const imported = now?.imported ?? 0;
  const left = (now?.total ?? 0) - imported - (now?.skipped ?? 0);
  return finish(
    db,
    job.id,
    "stopped",
    `Your storage is full (${formatBytes(used)} of ${formatBytes(job.storageLimitBytes)}): the import stopped at "${at.title}". ${imported} conversations were imported; the other ${left} were not. Delete chats you no longer need, then import the file again: the chats already imported are skipped.`,
  );
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

interface BatchOutcome {
  /** Items marked done or skipped. */
  handled: number;
  /** The item that did not fit in the storage left (nothing after it was imported). */
  full?: ItemRow;
  /** The account was deleted meanwhile. */
  gone?: boolean;
}

/**
 * A batch in one transaction; if the database refuses it (a value out of its
 * bounds in one conversation), each of its items alone, and one refused
 * alone is skipped and said so rather than stopping the job. A database that
 * cannot even record that is down: the error goes up, and the job waits for
 * the next worker.
 */
async function importBatchOrEach(db: Db, job: ImportJobRow, items: ItemRow[]): Promise<BatchOutcome> {
  try {
    return await importBatch(db, job, items);
  } catch (error) {
    if (isAccountDeleted(error)) return { handled: 0, gone: true };
    if (items.length === 1) {
      logBackendFault("postgres", "importing a conversation", error);
      await db.transaction((tx) => markItems(tx, job.id, [], [[items[0].ordinal, "it could not be stored"]]));
      return { handled: 1 };
    }
  }
  let handled = 0;
  for (const item of items) {
    const outcome = await importBatchOrEach(db, job, [item]);
    handled += outcome.handled;
    if (outcome.full || outcome.gone) return { ...outcome, handled };
  }
  return { handled };
}

/** The items in order, each conversation with its item marked and the job counted, in one transaction. */
async function importBatch(db: Db, job: ImportJobRow, items: ItemRow[]): Promise<BatchOutcome> {
  return writeForAccount(db, job.uid, async (tx) => {
    // The user's imports and uploads one at a time against their storage (the lock of app/data/attachments.server.ts).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('attachments'), hashtext(${job.uid}))`);
    // Under the lock, only what is still pending: a worker whose lease ran out mid-batch and another
    // that took the job up never both import an item.
    const pending = new Set(
      (
        await tx
          .select({ ordinal: importItems.ordinal })
          .from(importItems)
          .where(
            and(
              eq(importItems.jobId, job.id),
              eq(importItems.status, "pending"),
              inArray(
                importItems.ordinal,
                items.map((item) => item.ordinal),
              ),
            ),
          )
      ).map((row) => row.ordinal),
    );
    items = items.filter((item) => pending.has(item.ordinal));
    let used = await storageUsed(tx, job.uid);
    const before = await tx
      .select({ sourceId: importedConversations.sourceId })
      .from(importedConversations)
      .where(
        and(
          eq(importedConversations.uid, job.uid),
          eq(importedConversations.source, job.source),
          inArray(
            importedConversations.sourceId,
            items.map((item) => item.sourceId),
          ),
        ),
      );
    const seen = new Set(before.map((row) => row.sourceId));
    const done: number[] = [];
    const skipped: Array<[number, string]> = [];
    const store: Array<{ conversation: ImportedConversation; bytes: number }> = [];
    let full: ItemRow | undefined;
    for (const item of items) {
      const conversation = item.conversation as ImportedConversation | null;
      if (!conversation) skipped.push([item.ordinal, "it could not be read"]);
      else if (seen.has(item.sourceId)) skipped.push([item.ordinal, "it was imported before"]);
      else {
        const bytes = conversationBytes(conversation);
        if (used + bytes > job.storageLimitBytes) {
          full = item;
          break;
        }
        used += bytes;
        seen.add(item.sourceId);
        store.push({ conversation, bytes });
        done.push(item.ordinal);
      }
    }
    await storeConversations(tx, job, store);
    await markItems(tx, job.id, done, skipped);
    return { handled: done.length + skipped.length, full };
  });
}

async function markItems(tx: Tx, jobId: string, done: number[], skipped: Array<[number, string]>) {
  if (done.length > 0)
    await tx
      .update(importItems)
      .set({ status: "done", conversation: null })
      .where(and(eq(importItems.jobId, jobId), inArray(importItems.ordinal, done)));
  const byReason = new Map<string, number[]>();
  for (const [ordinal, reason] of skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), ordinal]);
  for (const [reason, ordinals] of byReason)
    await tx
      .update(importItems)
      .set({ status: "skipped", reason, conversation: null })
      .where(and(eq(importItems.jobId, jobId), inArray(importItems.ordinal, ordinals)));
  await tx
    .update(importJobs)
    .set({
      imported: sql`${importJobs.imported} + ${done.length}`,
      skipped: sql`${importJobs.skipped} + ${skipped.length}`,
    })
    .where(eq(importJobs.id, jobId));
}

/** The conversations with their messages under new ids, in the order given (siblings' order is their stored order). */
async function storeConversations(
  tx: Tx,
  job: ImportJobRow,
  list: Array<{ conversation: ImportedConversation; bytes: number }>,
) {
  if (list.length === 0) return;
  const chats: Array<typeof conversations.$inferInsert> = [];
  const rows: Array<typeof messages.$inferInsert> = [];
  const origins: Array<typeof importedConversations.$inferInsert> = [];
  for (const { conversation, bytes } of list) {
    const id = randomUUID();
    const ids = new Map(conversation.messages.map((message) => [message.id, randomUUID()]));
    const fallbackTime = new Date(conversation.createdAt);
    chats.push({
      id,
      uid: job.uid,
      title: conversation.title,
      currentLeafId: conversation.currentLeafId ? (ids.get(conversation.currentLeafId) ?? null) : null,
      createdAt: new Date(conversation.createdAt),
      updatedAt: new Date(conversation.updatedAt),
    });
    for (const message of conversation.messages)
      rows.push({
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
      });
    origins.push({ conversationId: id, uid: job.uid, source: job.source, sourceId: conversation.sourceId, bytes });
  }
  await tx.insert(conversations).values(chats);
  for (let at = 0; at < rows.length; at += MESSAGE_INSERT_BATCH)
    await tx.insert(messages).values(rows.slice(at, at + MESSAGE_INSERT_BATCH));
  await tx.insert(importedConversations).values(origins);
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
