import type { UIMessageChunk } from "ai";
import type { Db } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import {
  appendBatch,
  endRun,
  insertRun,
  notifyRun,
  renewLease,
  type RunIdentity,
  type RunStatus,
} from "./run-store.server";
import { runSettings } from "./run-settings.server";
import { noticeRunEnded } from "../notify/reply-notices.server";

/**
 * A reply being generated on this instance (docs/decisions/070). The
 * generation pushes its UI message chunks here; any number of readers follow
 * them from the first (the request that started it, a reload on this
 * instance); a writer appends them to PostgreSQL at most every FLUSH_MS in
 * one statement that also renews the lease, for readers on other instances
 * and for the instance that settles the run if this one dies.
 */

/** Longest a chunk waits before it is written: at most one write per this many ms of streaming. */
export const FLUSH_MS = 250;

export type StopReason = "stop" | "shutdown";

export class LocalRun {
  readonly chunks: UIMessageChunk[] = [];
  status: RunStatus = "running";
  /** Batches written so far. */
  written = 0;
  private pending: UIMessageChunk[] = [];
  private readonly listeners = new Set<() => void>();
  private chain: Promise<unknown>;
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly leaseTimer: NodeJS.Timeout;
  private lastWrite = Date.now();
  /** Set by the generation: stops the model request (Stop from anywhere, or shutdown). */
  onStop: (reason: StopReason) => void = () => undefined;
  /** Resolves once the run's row is written (false if it could not be): from then on any instance finds it. */
  readonly recorded: Promise<boolean>;
  /** Resolves when the run has ended and its last batch is written. */
  readonly done: Promise<void>;
  private markDone: () => void = () => undefined;

  constructor(
    private readonly db: Db,
    readonly identity: RunIdentity,
    instance: string,
  ) {
    const { leaseSeconds } = runSettings();
    this.done = new Promise((resolve) => (this.markDone = resolve));
    this.recorded = insertRun(db, { ...identity, instance }, leaseSeconds).then(
      () => true,
      (error) => {
        // A deleted account's run is not recorded, and that is no fault.
        if (!isAccountDeleted(error)) logBackendFault("postgres", "recording a reply run", error);
        return false;
      },
    );
    this.chain = this.recorded;
    // While the model is silent (no batch to write), the lease is renewed on its own.
    this.leaseTimer = setInterval(
      () => {
        if (Date.now() - this.lastWrite < (leaseSeconds * 1000) / 3) return;
        this.enqueue(() => renewLease(db, identity.id, leaseSeconds).then((result) => this.checkStop(result)));
      },
      (leaseSeconds * 1000) / 3,
    );
    this.leaseTimer.unref();
  }

  get id() {
    return this.identity.id;
  }

  push(chunk: UIMessageChunk) {
    if (this.status !== "running") return;
    this.chunks.push(chunk);
    this.pending.push(chunk);
    for (const listener of this.listeners) listener();
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  stop(reason: StopReason) {
    this.onStop(reason);
  }

  /** Writes what is left, marks the run ended and tells the readers. */
  async end(status: Exclude<RunStatus, "running">): Promise<void> {
    if (this.status !== "running") return;
    this.flush();
    this.status = status;
    clearInterval(this.leaseTimer);
    for (const listener of this.listeners) listener();
    await this.enqueue(async () => {
      const ended = await endRun(this.db, this.id, status);
      await notifyRun(this.db, { run: this.id, kind: "end" });
      // The instance that marked it ended tells the user, if they are away (docs/decisions/101).
      if (ended) noticeRunEnded(this.db, this.identity, status);
    });
    this.markDone();
  }

  /** The run's chunks from the first, then live, until it ends. */
  read(signal?: AbortSignal): ReadableStream<UIMessageChunk> {
    let index = 0;
    let wake: (() => void) | undefined;
    const listener = () => wake?.();
    this.listeners.add(listener);
    const cleanup = () => void this.listeners.delete(listener);
    signal?.addEventListener("abort", () => wake?.(), { once: true });
    return new ReadableStream<UIMessageChunk>({
      pull: async (controller) => {
        for (;;) {
          if (index < this.chunks.length) {
            controller.enqueue(this.chunks[index++]);
            return;
          }
          if (this.status !== "running" || signal?.aborted) {
            cleanup();
            controller.close();
            return;
          }
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      },
      cancel: cleanup,
    });
  }

  private flush() {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const seq = ++this.written;
    this.lastWrite = Date.now();
    const { leaseSeconds, notify } = runSettings();
    this.enqueue(() =>
      appendBatch(this.db, this.id, seq, batch, leaseSeconds, notify).then((result) => this.checkStop(result)),
    );
  }

  private checkStop({ stopRequested }: { stopRequested: boolean }) {
    if (stopRequested && this.status === "running") this.stop("stop");
  }

  /**
   * Writes happen one after another, in order; a failed one is logged (readers
   * elsewhere fall behind). A run that was never recorded has no row to write to.
   */
  private enqueue(write: () => Promise<unknown>): Promise<unknown> {
    this.chain = this.chain
      .then(async () => ((await this.recorded) ? write() : undefined))
      .catch((error) => logBackendFault("postgres", "writing a reply run", error));
    return this.chain;
  }
}
