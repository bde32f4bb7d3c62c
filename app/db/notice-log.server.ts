import { randomUUID } from "node:crypto";
import type pg from "pg";
import { logBackendFault } from "~/deadline.server";
import { log } from "~/log/logger.server";

/**
 * Notices as rows (docs/decisions/097), for when DATABASE_URL is a
 * transaction pooler and no DATABASE_DIRECT_URL is given: LISTEN needs a
 * session of its own, which such a pooler does not keep. A publisher inserts
 * into polled_notices what it would have NOTIFYed; every process reads the
 * rows after the last it has seen, every POLL_MS, and hands each to the same
 * handlers a notification goes to. Rows are kept KEEP_SECONDS.
 *
 * Identity values are taken when a row is inserted but seen only once it is
 * committed, so a later row can be read before an earlier one: an id skipped
 * over is asked for again until it shows up, or for GAP_WAIT_MS (an insert
 * rolled back leaves a hole that never fills).
 */

/** How often each process reads new notices: 2 indexed reads a second, finding nothing when nothing happened. */
export const POLL_MS = 500;
const KEEP_SECONDS = 300;
const PRUNE_EVERY_MS = 60_000;
/** Longer than any insert takes to commit (BACKEND_TIMEOUT_MS is at most 30 s). */
const GAP_WAIT_MS = 30_000;
/** A hole this wide is no insert in flight: it is not waited for. */
const MAX_GAP = 1_000;

/** This process, as written in the rows it publishes: it has delivered them to itself already. */
const ORIGIN = randomUUID();

type Queryable = Pick<pg.Pool, "query">;

export async function insertNotice(client: Queryable, channel: string, payload: string): Promise<void> {
  await client.query("insert into polled_notices (channel, payload, origin) values ($1, $2, $3)", [
    channel,
    payload,
    ORIGIN,
  ]);
}

export interface NoticePoller {
  /** Resolves once the first read has told where the log ends (notices from then on are delivered). */
  ready: Promise<void>;
  stop(): void;
}

interface NoticeRow {
  id: string;
  channel: string;
  payload: string;
  origin: string;
}

/**
 * Reads other processes' notices every `everyMs` and hands each to
 * `dispatch`, in order of publication as far as commits allow; `missed` is
 * called when reads failed for so long that rows may have been pruned unseen.
 */
export function startNoticePoller(
  pool: Queryable,
  {
    dispatch,
    missed,
    everyMs = POLL_MS,
  }: { dispatch: (channel: string, payload: string) => void; missed: () => void; everyMs?: number },
): NoticePoller {
  let after: number | null = null;
  /** Ids skipped over, with when they were first missed. */
  const gaps = new Map<number, number>();
  let lastRead = Date.now();
  let lastPrune = 0;
  let busy = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  async function start() {
    const { rows } = await pool.query<{ id: string }>("select coalesce(max(id), 0) as id from polled_notices");
    after = Number(rows[0].id);
    log().info({ store: "postgres", everyMs }, `[postgres] notices polled every ${everyMs} ms (no LISTEN)`);
    markReady();
  }

  async function readNew(last: number) {
    const { rows } = await pool.query<NoticeRow>(
      "select id, channel, payload, origin from polled_notices where id > $1 or id = any($2::bigint[]) order by id",
      [last, [...gaps.keys()]],
    );
    for (const row of rows) {
      const id = Number(row.id);
      if (id > last) noteGaps(last, id);
      else gaps.delete(id);
      last = Math.max(last, id);
      after = last; // before the handler runs: one that throws must not have it read again
      if (row.origin !== ORIGIN) dispatch(row.channel, row.payload);
    }
  }

  /** The ids between the last seen and `id` may be inserts not yet committed. */
  function noteGaps(last: number, id: number) {
    if (id - last - 1 > MAX_GAP) return;
    for (let skipped = last + 1; skipped < id; skipped++) gaps.set(skipped, Date.now());
  }

  function forgetOldGaps() {
    for (const [id, since] of gaps) if (Date.now() - since > GAP_WAIT_MS) gaps.delete(id);
  }

  async function prune() {
    if (Date.now() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = Date.now();
    await pool.query("delete from polled_notices where created_at < now() - make_interval(secs => $1)", [KEEP_SECONDS]);
  }

  async function poll() {
    if (busy) return;
    busy = true;
    try {
      if (after === null) return await start();
      await readNew(after);
      // Reads failed for longer than rows are kept: some may be gone unread.
      if (Date.now() - lastRead > (KEEP_SECONDS * 1000) / 2) missed();
      lastRead = Date.now();
      forgetOldGaps();
      await prune();
    } catch (error) {
      logBackendFault("postgres", "reading polled notices", error);
    } finally {
      busy = false;
    }
  }

  const timer = setInterval(() => void poll(), everyMs);
  timer.unref(); // never keeps a stopping process alive
  void poll();
  return { ready, stop: () => clearInterval(timer) };
}
