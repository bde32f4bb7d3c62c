import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import type { UIMessageChunk } from "ai";
import { writeForAccount } from "~/data/account-lock.server";
import type { Exchange } from "~/data/messages.server";
import type { Db } from "~/db/client.server";
import { replyRunEvents, replyRuns } from "~/db/schema";
import { noticesArePolled, RUNS_NOTICE_CHANNEL } from "~/db/notices.server";

/**
 * Reply runs in PostgreSQL (docs/decisions/070): the row says who runs a
 * reply and until when (the lease), its events are the UI message chunks in
 * batches. Every write that other instances should see at once is followed
 * by a NOTIFY on RUNS_NOTICE_CHANNEL whose payload is only the run id and what
 * changed; readers fetch the rows.
 */

export type RunStatus = "running" | "completed" | "stopped" | "failed" | "interrupted";

/** The exchange a run stores when it ends, as kept in its row (dates as ISO strings). */
export type PendingExchange = Omit<Exchange, "reply" | "refund" | "user"> & {
  user: Omit<Exchange["user"], "sentAt"> & { sentAt: string };
};

export interface RunRow extends RunIdentity {
  status: RunStatus;
  instance: string;
  batches: number;
  stopRequested: boolean;
  startedAt: Date;
}

export type RunNotice =
  { run: string; kind: "events"; seq: number } | { run: string; kind: "stop" } | { run: string; kind: "end" };

/** What a run is: its reply's id, whose, for which message, and the exchange it will store. */
export interface RunIdentity {
  id: string;
  uid: string;
  conversationId: string;
  userMessageId: string;
  exchange: PendingExchange;
  model: string;
}

/**
 * Records a run under the account's lock (deletion wins, docs/decisions/045):
 * a reply that started just before its account was deleted leaves no row behind.
 * Throws AccountDeletedError, writing nothing, when the account is gone.
 */
export async function insertRun(db: Db, run: RunIdentity & { instance: string }, leaseSeconds: number): Promise<void> {
  await writeForAccount(db, run.uid, (tx) =>
    tx.insert(replyRuns).values({
      ...run,
      leaseUntil: sql`now() + make_interval(secs => ${leaseSeconds})`,
    }),
  );
}

/**
 * Appends one batch of chunks and renews the lease in a single statement,
 * then tells the other instances. Returns whether a Stop was asked for
 * meanwhile (from another instance: the fallback when its NOTIFY was lost).
 */
export async function appendBatch(
  db: Db,
  runId: string,
  seq: number,
  chunks: UIMessageChunk[],
  leaseSeconds: number,
  notify: boolean,
): Promise<{ stopRequested: boolean }> {
  const payload = JSON.stringify({ run: runId, kind: "events", seq } satisfies RunNotice);
  const result = await db.execute<{ stop_requested: boolean }>(sql`
    with appended as (
      insert into ${replyRunEvents} (run_id, seq, chunks) values (${runId}::uuid, ${seq}, ${JSON.stringify(chunks)}::jsonb)
      returning seq
    ), renewed as (
      update ${replyRuns} set batches = ${seq}, lease_until = now() + make_interval(secs => ${leaseSeconds})
      where id = ${runId}::uuid and ${seq} = (select seq from appended)
      returning stop_requested
    )
    select stop_requested, ${notify ? sql`pg_notify(${RUNS_NOTICE_CHANNEL}, ${payload})` : sql`null`} as notified from renewed
  `);
  return { stopRequested: Boolean(result.rows[0]?.stop_requested) };
}

/** Renews the lease of a run that is waiting for the model (no batch to write). */
export async function renewLease(db: Db, runId: string, leaseSeconds: number): Promise<{ stopRequested: boolean }> {
  const rows = await db
    .update(replyRuns)
    .set({ leaseUntil: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .where(and(eq(replyRuns.id, runId), eq(replyRuns.status, "running")))
    .returning({ stopRequested: replyRuns.stopRequested });
  return { stopRequested: rows[0]?.stopRequested ?? false };
}

/**
 * Ends a run that is still running (one writer wins: the instance running it,
 * or one that found its lease expired). False when it had already ended.
 */
export async function endRun(
  db: Db,
  runId: string,
  status: Exclude<RunStatus, "running">,
  { expiredOnly = false } = {},
): Promise<boolean> {
  const rows = await db
    .update(replyRuns)
    .set({ status, endedAt: sql`now()` })
    .where(
      and(
        eq(replyRuns.id, runId),
        eq(replyRuns.status, "running"),
        expiredOnly ? sql`${replyRuns.leaseUntil} < now()` : undefined,
      ),
    )
    .returning({ id: replyRuns.id });
  return rows.length > 0;
}

/** Tells the instances following or running it; where nothing listens, they watch its row (runs.server.ts). */
export async function notifyRun(db: Db, notice: RunNotice): Promise<void> {
  if (noticesArePolled()) return;
  await db.execute(sql`select pg_notify(${RUNS_NOTICE_CHANNEL}, ${JSON.stringify(notice)})`);
}

/** Asks whichever instance runs it to stop; false when the user has no such run running. */
export async function requestStop(
  db: Db,
  uid: string,
  where: { runId?: string; userMessageId?: string },
): Promise<string | null> {
  const match = where.runId ? eq(replyRuns.id, where.runId) : eq(replyRuns.userMessageId, where.userMessageId ?? "");
  const rows = await db
    .update(replyRuns)
    .set({ stopRequested: true })
    .where(and(match, eq(replyRuns.uid, uid), eq(replyRuns.status, "running")))
    .returning({ id: replyRuns.id });
  const id = rows[0]?.id ?? null;
  if (id) await notifyRun(db, { run: id, kind: "stop" });
  return id;
}

const RUN_COLUMNS = {
  id: replyRuns.id,
  uid: replyRuns.uid,
  conversationId: replyRuns.conversationId,
  userMessageId: replyRuns.userMessageId,
  exchange: replyRuns.exchange,
  model: replyRuns.model,
  status: replyRuns.status,
  instance: replyRuns.instance,
  batches: replyRuns.batches,
  stopRequested: replyRuns.stopRequested,
  startedAt: replyRuns.startedAt,
};

export async function getRun(db: Db, runId: string): Promise<RunRow | undefined> {
  const [row] = await db.select(RUN_COLUMNS).from(replyRuns).where(eq(replyRuns.id, runId)).limit(1);
  return row as RunRow | undefined;
}

/** The user's runs still going, newest first (for the sidebar and the conversation page). */
export async function runningRuns(db: Db, uid: string, conversationId?: string): Promise<RunRow[]> {
  const rows = await db
    .select(RUN_COLUMNS)
    .from(replyRuns)
    .where(
      and(
        eq(replyRuns.uid, uid),
        eq(replyRuns.status, "running"),
        conversationId ? eq(replyRuns.conversationId, conversationId) : undefined,
      ),
    )
    .orderBy(sql`${replyRuns.startedAt} desc`)
    .limit(50);
  return rows as RunRow[];
}

/** What a watcher reads of the runs it follows or runs when no notice can reach it: one indexed read for all. */
export async function runStates(
  db: Db,
  ids: string[],
): Promise<Pick<RunRow, "id" | "status" | "batches" | "stopRequested">[]> {
  const rows = await db
    .select({
      id: replyRuns.id,
      status: replyRuns.status,
      batches: replyRuns.batches,
      stopRequested: replyRuns.stopRequested,
    })
    .from(replyRuns)
    .where(inArray(replyRuns.id, ids));
  return rows as Pick<RunRow, "id" | "status" | "batches" | "stopRequested">[];
}

/** The batches after `afterSeq`, in order, flattened to chunks. */
export async function readBatches(
  db: Db,
  runId: string,
  afterSeq: number,
): Promise<{ seq: number; chunks: UIMessageChunk[] }[]> {
  const rows = await db
    .select({ seq: replyRunEvents.seq, chunks: replyRunEvents.chunks })
    .from(replyRunEvents)
    .where(and(eq(replyRunEvents.runId, runId), gt(replyRunEvents.seq, afterSeq)))
    .orderBy(asc(replyRunEvents.seq));
  return rows as { seq: number; chunks: UIMessageChunk[] }[];
}

/** Runs whose lease has run out while still marked running: their instance is gone. */
export async function expiredRuns(db: Db, limit = 20): Promise<RunRow[]> {
  const rows = await db
    .select(RUN_COLUMNS)
    .from(replyRuns)
    .where(and(eq(replyRuns.status, "running"), sql`${replyRuns.leaseUntil} < now()`))
    .limit(limit);
  return rows as RunRow[];
}

/** Ended runs' rows and events are kept a while for late readers, then go. */
export async function pruneRuns(db: Db, olderThanSeconds: number): Promise<number> {
  const rows = await db
    .delete(replyRuns)
    .where(
      and(
        inArray(replyRuns.status, ["completed", "stopped", "failed", "interrupted"]),
        sql`${replyRuns.endedAt} < now() - make_interval(secs => ${olderThanSeconds})`,
      ),
    )
    .returning({ id: replyRuns.id });
  return rows.length;
}

/**
 * Takes over the lease of a run whose instance stopped renewing it: only one
 * instance can (the lease is then valid again), so a run is settled once.
 */
export async function takeOverExpired(db: Db, runId: string, instance: string, leaseSeconds: number): Promise<boolean> {
  const rows = await db
    .update(replyRuns)
    .set({ instance, leaseUntil: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .where(and(eq(replyRuns.id, runId), eq(replyRuns.status, "running"), sql`${replyRuns.leaseUntil} < now()`))
    .returning({ id: replyRuns.id });
  return rows.length > 0;
}

/** Whether a new chat's first reply failed here (so its conversation was never stored, not deleted). */
export async function firstReplyFailed(db: Db, uid: string, conversationId: string): Promise<boolean> {
  const rows = await db
    .select({ id: replyRuns.id })
    .from(replyRuns)
    .where(
      and(
        eq(replyRuns.uid, uid),
        eq(replyRuns.conversationId, conversationId),
        eq(replyRuns.status, "failed"),
        sql`jsonb_exists(${replyRuns.exchange}, 'create')`,
      ),
    )
    .limit(1);
  return rows.length > 0;
}
