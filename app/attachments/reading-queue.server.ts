/**
 * Whose document is read next (docs/decisions/074-reading-documents-in-a-bounded-process.md).
 * Reading a PDF or a Word document takes a core for up to its deadline, so a
 * process reads only a few at once; the rest wait, fairly and within bounds:
 *
 * - one document at a time per account: an account's next one waits behind
 *   its first, and never takes a second reader while others wait;
 * - the next reader goes to the waiting account served least recently (round
 *   robin between accounts, not first come first served), so one account's
 *   pile of documents delays another's by at most one document per reader;
 * - an account holds at most `perAccount` documents in the queue (read and
 *   waiting), and the queue at most `maxWaiting` documents and
 *   `maxWaitingBytes` of them: past those, a document is refused at once
 *   instead of waiting without end.
 */

export interface ReadingQueueBounds {
  /** Documents read at once. */
  parallel: number;
  /** Documents an account may have being read or waiting. */
  perAccount: number;
  /** Documents waiting, all accounts together. */
  maxWaiting: number;
  /** Bytes of the waiting documents (each is held in memory until it is read and stored). */
  maxWaitingBytes: number;
}

/** "account-busy": the account has perAccount documents in the queue already; "full": the queue is. */
export type QueueRefusal = "account-busy" | "full";

export type QueueResult<T> = { ok: true; value: T } | { ok: false; refusal: QueueRefusal };

interface Waiter {
  bytes: number;
  start: () => void;
}

export class ReadingQueue {
  private readonly readingAccounts = new Set<string>();
  /** Accounts with documents waiting, each with its own line, in the order they began to wait. */
  private readonly lines = new Map<string, Waiter[]>();
  /** Documents in the queue (read or waiting) per account; an account with none is not kept. */
  private readonly held = new Map<string, number>();
  /** When each account with documents in the queue last had one start (a count of starts, not a time). */
  private readonly lastStarted = new Map<string, number>();
  private starts = 0;
  private waitingCount = 0;
  private waitingBytes = 0;

  constructor(private readonly bounds: ReadingQueueBounds) {}

  /** Runs `read` for `account` when its turn comes; or refuses at once, without waiting. */
  async run<T>(account: string, bytes: number, read: () => Promise<T>): Promise<QueueResult<T>> {
    const held = this.held.get(account) ?? 0;
    if (held >= this.bounds.perAccount) return { ok: false, refusal: "account-busy" };
    if (this.canStartNow(account)) {
      this.held.set(account, held + 1);
      this.begin(account);
    } else {
      if (this.waitingCount >= this.bounds.maxWaiting || this.waitingBytes + bytes > this.bounds.maxWaitingBytes) {
        return { ok: false, refusal: "full" };
      }
      this.held.set(account, held + 1);
      await new Promise<void>((start) => this.wait(account, { bytes, start }));
    }
    try {
      return { ok: true, value: await read() };
    } finally {
      this.end(account);
    }
  }

  /** A free reader and nothing of this account's being read. (No one else can be waiting for that reader: it would have been handed on.) */
  private canStartNow(account: string): boolean {
    return this.readingAccounts.size < this.bounds.parallel && !this.readingAccounts.has(account);
  }

  private wait(account: string, waiter: Waiter) {
    const line = this.lines.get(account);
    if (line) line.push(waiter);
    else this.lines.set(account, [waiter]);
    this.waitingCount += 1;
    this.waitingBytes += waiter.bytes;
  }

  private begin(account: string) {
    this.readingAccounts.add(account);
    this.starts += 1;
    this.lastStarted.set(account, this.starts);
  }

  private end(account: string) {
    this.readingAccounts.delete(account);
    const held = (this.held.get(account) ?? 1) - 1;
    if (held > 0) {
      this.held.set(account, held);
    } else {
      this.held.delete(account);
      this.lastStarted.delete(account);
    }
    this.handOn();
  }

  /** Gives free readers to the accounts served least recently that have documents waiting and none being read. */
  private handOn() {
    while (this.readingAccounts.size < this.bounds.parallel) {
      const account = this.nextAccount();
      if (account === undefined) return;
      const line = this.lines.get(account)!;
      const waiter = line.shift()!;
      if (line.length === 0) this.lines.delete(account);
      this.waitingCount -= 1;
      this.waitingBytes -= waiter.bytes;
      this.begin(account);
      waiter.start();
    }
  }

  private nextAccount(): string | undefined {
    let next: string | undefined;
    let nextStarted = Infinity;
    for (const account of this.lines.keys()) {
      if (this.readingAccounts.has(account)) continue;
      // Never started counts as longest ago; ties go to the account that began to wait first (the lines' order).
      const started = this.lastStarted.get(account) ?? 0;
      if (started < nextStarted) {
        next = account;
        nextStarted = started;
      }
    }
    return next;
  }
}
