import type { UIMessageChunk } from "ai";
import type { Db } from "~/db/client.server";
import { noticesArePolled, onNotice, RUNS_NOTICE_CHANNEL } from "~/db/notices.server";
import { logBackendFault } from "~/deadline.server";
import { isUuid } from "~/ids/uuid";
import { log } from "~/log/logger.server";
import { LocalRun } from "./local-run.server";
import {
  expiredRuns,
  getRun,
  pruneRuns,
  readBatches,
  requestStop,
  runStates,
  type RunIdentity,
  type RunNotice,
  type RunRow,
} from "./run-store.server";
import { INSTANCE_ID, runSettings } from "./run-settings.server";
import { settleInterrupted } from "./interrupted.server";
import { installShutdown } from "./shutdown.server";
import { publishConversationEvent } from "../live/conversation-events.server";
import { runStarted } from "../live/run-events";

/**
 * This instance's replies being generated, and the way to any run wherever
 * it runs (docs/decisions/070): read it from its first chunk and follow it
 * live, stop it, and settle the runs of instances that died.
 */

const local = new Map<string, LocalRun>();
/** Keeps an ended run a moment for readers that arrive just after its end. */
const KEEP_ENDED_MS = 30_000;
/** Readers on other instances poll this often too, in case a notification was lost. */
const POLL_MS = 1_000;

let draining = false;

export function startRun(db: Db, identity: RunIdentity): LocalRun {
  const run = new LocalRun(db, identity, INSTANCE_ID);
  local.set(run.id, run);
  void run.done.then(() => setTimeout(() => local.delete(run.id), KEEP_ENDED_MS).unref());
  publishRunChanges(db, run);
  ensureSweeper(db);
  ensureWatcher(db);
  installShutdown({ begin: beginDraining, running: localRuns });
  return run;
}

/**
 * Every open list of the user's hears the run start once any instance can find
 * it, and end once its row says so (docs/decisions/086): a list read after the
 * end no longer says "still writing…".
 */
function publishRunChanges(db: Db, run: LocalRun) {
  const { identity } = run;
  void run.recorded.then(async (recorded) => {
    if (!recorded) return;
    await publishConversationEvent(db, identity.uid, runStarted({ ...identity, startedAt: new Date() }));
    await run.done;
    await publishConversationEvent(db, identity.uid, {
      type: "run-ended",
      conversationId: identity.conversationId,
      runId: identity.id,
      status: run.status === "running" ? "failed" : run.status,
    });
  });
}

/** Whether this instance is shutting down: it takes no new generations (SIGTERM). */
export function isDraining() {
  return draining;
}

export function localRuns(): LocalRun[] {
  return [...local.values()].filter((run) => run.status === "running");
}

export function beginDraining() {
  draining = true;
}

/**
 * Stops the user's run (by its id, or by the user message it answers),
 * wherever it runs. False when there is no such run going.
 */
export async function stopRun(
  db: Db,
  uid: string,
  where: { runId?: string; userMessageId?: string },
): Promise<boolean> {
  for (const run of local.values()) {
    const matches = where.runId ? run.id === where.runId : run.identity.userMessageId === where.userMessageId;
    if (matches && run.identity.uid === uid && run.status === "running") {
      run.stop("stop");
      return true;
    }
  }
  return (await requestStop(db, uid, where)) !== null;
}

/** A run's chunks from its first, then live until it ends: from memory when it runs here, else from PostgreSQL. */
export function readRun(db: Db, run: RunRow, signal: AbortSignal): ReadableStream<UIMessageChunk> {
  const here = local.get(run.id);
  if (here) return here.read(signal);
  return followStored(db, run.id, signal);
}

// ---- following a run stored by another instance ---------------------------------

const followers = new Map<string, Set<(notice: RunNotice) => void>>();

onNotice(RUNS_NOTICE_CHANNEL, (payload) => {
  const notice = parseNotice(payload);
  if (notice) hear(notice);
});

function hear(notice: RunNotice) {
  if (notice.kind === "stop") local.get(notice.run)?.stop("stop");
  for (const follower of followers.get(notice.run) ?? []) follower(notice);
}

function parseNotice(payload: string): RunNotice | null {
  try {
    const value = JSON.parse(payload) as Partial<RunNotice>;
    if (!isUuid(value.run)) return null;
    if (value.kind !== "events" && value.kind !== "stop" && value.kind !== "end") return null;
    return value as RunNotice;
  } catch {
    return null;
  }
}

function followStored(db: Db, runId: string, signal: AbortSignal): ReadableStream<UIMessageChunk> {
  let seq = 0;
  let closed = false;
  let busy: Promise<void> = Promise.resolve();
  let queued = false;
  let wantEnd = false;
  let poll: NodeJS.Timeout | undefined;
  const stopFollowing = () => {
    closed = true;
    clearInterval(poll);
    followers.get(runId)?.delete(onNotice);
    if (followers.get(runId)?.size === 0) followers.delete(runId);
  };
  let onNotice: (notice: RunNotice) => void = () => undefined;

  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      const close = () => {
        if (closed) return;
        stopFollowing();
        controller.close();
      };
      /** Reads the batches not seen yet; with `checkEnd`, closes once the run has ended and all is read. */
      const catchUp = (checkEnd: boolean) => {
        wantEnd ||= checkEnd;
        if (queued) return;
        queued = true;
        busy = busy.then(async () => {
          queued = false;
          const check = wantEnd;
          wantEnd = false;
          if (closed) return;
          try {
            // The status first: a run marked ended has written all its batches.
            const ended = check ? (await getRun(db, runId))?.status !== "running" : false;
            for (const batch of await readBatches(db, runId, seq)) {
              for (const chunk of batch.chunks) controller.enqueue(chunk);
              seq = batch.seq;
            }
            if (ended) close();
          } catch (error) {
            logBackendFault("postgres", "following a reply run", error);
          }
        });
      };
      onNotice = (notice) => catchUp(notice.kind === "end");
      let set = followers.get(runId);
      if (!set) followers.set(runId, (set = new Set()));
      set.add(onNotice);
      signal.addEventListener("abort", close, { once: true });
      poll = setInterval(() => catchUp(true), POLL_MS);
      poll.unref();
      ensureWatcher(db);
      catchUp(true);
    },
    cancel: stopFollowing,
  });
}

// ---- where no notice comes (a transaction pooler without a direct URL) ---------------

/**
 * How often an instance reads the rows of the runs it follows or runs when
 * nothing LISTENs (docs/decisions/097): one indexed read for all of them, only
 * while there is one. A batch then shows on another instance at most this
 * much later than a notice would have brought it.
 */
export const WATCH_MS = 100;

let watcher: NodeJS.Timeout | undefined;
let watching = false;
/** Batches each followed run had at the last read. */
const batchesSeen = new Map<string, number>();

function ensureWatcher(db: Db) {
  if (watcher || !noticesArePolled()) return;
  watcher = setInterval(() => void watchRuns(db), WATCH_MS);
  watcher.unref();
}

/** Turns what the rows say into the notices that were not sent: new batches, an end, a Stop asked for. */
async function watchRuns(db: Db) {
  const ids = [...new Set([...followers.keys(), ...localRuns().map((run) => run.id)])];
  if (watching || ids.length === 0) return;
  watching = true;
  try {
    for (const state of await runStates(db, ids)) {
      if (state.stopRequested && local.get(state.id)?.status === "running") hear({ run: state.id, kind: "stop" });
      if (!followers.has(state.id)) continue;
      if (state.batches > (batchesSeen.get(state.id) ?? 0)) hear({ run: state.id, kind: "events", seq: state.batches });
      if (state.status !== "running") hear({ run: state.id, kind: "end" });
      batchesSeen.set(state.id, state.batches);
    }
    for (const id of batchesSeen.keys()) if (!followers.has(id)) batchesSeen.delete(id);
  } catch (error) {
    logBackendFault("postgres", "watching reply runs", error);
  } finally {
    watching = false;
  }
}

// ---- runs whose instance died ------------------------------------------------------

let sweeper: NodeJS.Timeout | undefined;
let lastPrune = 0;
/** Ended runs (rows and events) are kept this long for late readers. */
const KEEP_RUNS_SECONDS = 3_600;

/** Every instance checks, twice per lease, for runs whose lease ran out; one of them settles each. */
export function ensureSweeper(db: Db) {
  if (sweeper) return;
  const every = Math.max(1_000, (runSettings().leaseSeconds * 1000) / 2);
  sweeper = setInterval(() => void sweep(db), every);
  sweeper.unref();
}

export async function sweep(db: Db): Promise<number> {
  let settled = 0;
  try {
    for (const run of await expiredRuns(db)) {
      if (local.has(run.id)) continue; // ours and alive (a slow write): never settle our own
      if (await settleInterrupted(db, run)) {
        settled++;
        log().warn(
          { run: run.id, instance: run.instance },
          "a reply's instance stopped renewing its lease; marked it interrupted",
        );
      }
    }
    if (Date.now() - lastPrune > 600_000) {
      lastPrune = Date.now();
      await pruneRuns(db, KEEP_RUNS_SECONDS);
    }
  } catch (error) {
    logBackendFault("postgres", "checking for interrupted replies", error);
  }
  return settled;
}
