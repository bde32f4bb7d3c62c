import pg from "pg";
import { log } from "~/log/logger.server";
import { insertNotice, startNoticePoller, type NoticePoller } from "./notice-log.server";

/**
 * PostgreSQL notifications, one listening connection per process, routed by
 * channel to whoever handles them (the auth caches' invalidations,
 * app/auth/invalidation.server.ts; replies being generated,
 * app/chat/runs/runs.server.ts; the live conversation list,
 * app/chat/live/conversation-events.server.ts). Handlers register here, so the database
 * layer knows the channels' names and nothing of what they mean.
 *
 * The embedded PGlite of local mode is one process serving one app process:
 * there no listener is started (each publisher handles its own notice locally).
 *
 * LISTEN needs a session of its own. Behind a transaction pooler it listens on
 * DATABASE_DIRECT_URL; without one, notices are rows every process polls
 * (app/db/notice-log.server.ts; docs/decisions/097).
 */

export const AUTH_NOTICE_CHANNEL = "nuvara_auth";
export const RUNS_NOTICE_CHANNEL = "nuvara_runs";
export const CONVERSATIONS_NOTICE_CHANNEL = "nuvara_conversations";
export const NOTICE_CHANNELS = [AUTH_NOTICE_CHANNEL, RUNS_NOTICE_CHANNEL, CONVERSATIONS_NOTICE_CHANNEL] as const;
type NoticeChannel = (typeof NOTICE_CHANNELS)[number];

const handlers = new Map<string, (payload: string) => void>();
const reconnectHandlers = new Set<() => void>();

export function onNotice(channel: NoticeChannel, handler: (payload: string) => void) {
  handlers.set(channel, handler);
}

/** Called when the listener connects again: whatever was notified meanwhile is lost. */
export function onNoticesMissed(handler: () => void) {
  reconnectHandlers.add(handler);
}

export function dispatchNotice(channel: string, payload: string | undefined) {
  handlers.get(channel)?.(payload ?? "");
}

function dispatchMissed() {
  for (const handler of reconnectHandlers) handler();
}

const MAX_BACKOFF_MS = 30_000;

export interface Listener {
  /** Resolves once LISTEN is in place (the first time). */
  ready: Promise<void>;
  /** The listening connection's server process id (for tests), or null while disconnected or on PGlite. */
  pid(): number | null;
  stop(): Promise<void>;
}

/**
 * LISTENs on `databaseUrl` with its own Client (a pooled connection would be
 * handed back and lose it), reconnecting with backoff when the connection
 * drops; never throws and never crashes the process.
 */
export function startNoticeListener(
  databaseUrl: string,
  { dispatch = dispatchNotice }: { dispatch?: (channel: string, payload: string | undefined) => void } = {},
): Listener {
  let client: pg.Client | null = null;
  let backendPid: number | null = null;
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let connectedOnce = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const retry = () => {
    if (stopped) return;
    const delay = Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures, 7)) * (0.5 + Math.random() / 2);
    failures++;
    timer = setTimeout(connect, delay);
    timer.unref(); // never keeps a stopping process alive
  };

  async function connect() {
    if (stopped) return;
    const current = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000, keepAlive: true });
    client = current;
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost || stopped) return;
      lost = true;
      backendPid = null;
      log().warn(
        { store: "postgres" },
        `[postgres] auth invalidation listener lost${error ? `: ${error.message}` : ""}; reconnecting`,
      );
      current.end().catch(() => undefined);
      retry();
    };
    current.on("error", onLost);
    current.on("end", () => onLost());
    current.on("notification", (note) => dispatch(note.channel, note.payload));
    try {
      await current.connect();
      // Like the pool's idle connections: on SIGTERM remix-serve lets open replies finish and exits; this must not hold it.
      // (pg's Client.unref, used by the pool for allowExitOnIdle, is missing from @types/pg.)
      (current as pg.Client & { unref(): void }).unref();
      const { rows } = await current.query<{ version: string; pid: number }>(
        "select version() as version, pg_backend_pid() as pid",
      );
      if (rows[0].version.includes("PGlite")) {
        // One embedded database, one app process: local eviction is enough.
        stopped = true;
        await current.end();
        markReady();
        return;
      }
      for (const channel of NOTICE_CHANNELS) await current.query(`listen ${channel}`);
      if (stopped || lost) return;
      backendPid = rows[0].pid;
      failures = 0;
      if (connectedOnce) {
        // Whatever was published while this instance was not listening is lost.
        dispatchMissed();
        log().warn({ store: "postgres" }, "[postgres] auth invalidation listener connected again");
      } else {
        log().info({ store: "postgres" }, "[postgres] auth invalidation listener connected");
      }
      connectedOnce = true;
      markReady();
    } catch (error) {
      onLost(error instanceof Error ? error : new Error(String(error)));
    }
  }

  void connect();
  return {
    ready,
    pid: () => backendPid,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}

let listener: Listener | undefined;
let poller: NoticePoller | undefined;

/**
 * Whether this process hears its own NOTIFYs (a listener connected to a real
 * PostgreSQL): if not (PGlite, the listener reconnecting, or notices polled,
 * where a process skips its own), a publisher that must reach this process's
 * own subscribers delivers to them itself.
 */
export function hearsOwnNotices(): boolean {
  return listener?.pid() != null;
}

/** Whether notices are rows this process polls for (no LISTEN anywhere: a transaction pooler without a direct URL). */
export function noticesArePolled(): boolean {
  return poller !== undefined;
}

/** Tells every process: a NOTIFY where they listen, a row where they poll. */
export async function publishNotice(
  client: Pick<pg.Pool, "query">,
  channel: NoticeChannel,
  payload: string,
): Promise<void> {
  if (poller) await insertNotice(client, channel, payload);
  else await client.query("select pg_notify($1, $2)", [channel, payload]);
}

/**
 * Starts this process's notices once (called when the database is first
 * opened): LISTEN on `listenUrl`, a connection that keeps its session, or,
 * without one, polling through `pool`.
 */
export function ensureNotices({ pool, listenUrl }: { pool: Pick<pg.Pool, "query">; listenUrl?: string }) {
  if (listener || poller) return;
  if (listenUrl) listener = startNoticeListener(listenUrl);
  else poller = startNoticePoller(pool, { dispatch: dispatchNotice, missed: dispatchMissed });
}
