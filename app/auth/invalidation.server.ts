import pg from "pg";
import { getConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { log } from "~/log/logger.server";
import { dispatchNotice, NOTICE_CHANNELS } from "~/db/notices.server";
import { authCache } from "./auth-cache.server";

/**
 * Invalidation at once on every instance (docs/decisions/002, "Changed"): a
 * logout, a sign-out-everywhere, a role change or a disabled account evicts
 * its auth-cache entries here at once and is published with PostgreSQL's
 * NOTIFY; every instance LISTENs on one dedicated connection and evicts the
 * same entries. A notification lost (the listener reconnecting, the server
 * restarting) costs only freshness: the caches' TTL (≤ 30 s) stays the bound,
 * and a reconnected listener empties its caches, since it may have missed some.
 *
 * The embedded PGlite of local mode is one process serving one app process:
 * there the local eviction is everything, and no listener is started.
 */

export const CHANNEL = "nuvara_auth";

export type InvalidationReason = "logout" | "sign-out-everywhere" | "role" | "disable" | "enable" | "account";

export interface Invalidation {
  uid?: string;
  email?: string;
  /** A logged-out session: the SHA-256 of its cookie (the revocation cache's key). */
  session?: string;
  reason: InvalidationReason;
}

/**
 * Evicts what `message` names from this instance's auth caches. A logged-out
 * session is marked as such rather than evicted: that is what PostgreSQL
 * says now, and the publisher's own entry must not be lost if its write failed.
 */
function evict({ uid, email, session }: Invalidation) {
  if (uid) authCache.forgetUser(uid, email);
  if (email) authCache.forgetRole(email.toLowerCase());
  if (session) authCache.setRevoked(session, true);
}

/** The payload's shape, checked: anyone who can connect to the database can NOTIFY. */
function parse(payload: string | undefined): Invalidation | null {
  try {
    const value: unknown = JSON.parse(payload ?? "");
    if (!value || typeof value !== "object") return null;
    const { uid, email, session, reason } = value as Record<string, unknown>;
    const text = (field: unknown) => (typeof field === "string" && field.length > 0 && field.length <= 320 ? field : undefined);
    return { uid: text(uid), email: text(email), session: text(session), reason: (text(reason) ?? "account") as InvalidationReason };
  } catch {
    return null;
  }
}

/**
 * Evicts at once here, then tells the other instances. Never throws: the
 * user's action has happened; a failed publish is logged and the other
 * instances catch up within the caches' TTL.
 */
export async function publishInvalidation(message: Invalidation): Promise<void> {
  evict(message);
  const { databaseUrl, backendTimeoutMs } = getConfig();
  if (!databaseUrl || getConfig().authCacheTtlMs <= 0) return; // no caches, nothing to evict elsewhere
  const payload = JSON.stringify({ uid: message.uid, email: message.email?.toLowerCase(), session: message.session, reason: message.reason });
  try {
    await withDeadline("postgres", backendTimeoutMs, getDb().then((db) => db.$client.query("select pg_notify($1, $2)", [CHANNEL, payload])));
  } catch (error) {
    logBackendFault("postgres", "publishing an auth cache invalidation", error);
  }
}

// ---- the listener: one per process ------------------------------------------------

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
export function startListener(databaseUrl: string, { onMessage = evict }: { onMessage?: (message: Invalidation) => void } = {}): Listener {
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
      log().warn({ store: "postgres" }, `[postgres] auth invalidation listener lost${error ? `: ${error.message}` : ""}; reconnecting`);
      current.end().catch(() => undefined);
      retry();
    };
    current.on("error", onLost);
    current.on("end", () => onLost());
    current.on("notification", (note) => {
      if (note.channel !== CHANNEL) return dispatchNotice(note.channel, note.payload);
      const message = parse(note.payload);
      if (message) onMessage(message);
    });
    try {
      await current.connect();
      // Like the pool's idle connections: on SIGTERM remix-serve lets open replies finish and exits; this must not hold it.
      // (pg's Client.unref, used by the pool for allowExitOnIdle, is missing from @types/pg.)
      (current as pg.Client & { unref(): void }).unref();
      const { rows } = await current.query<{ version: string; pid: number }>("select version() as version, pg_backend_pid() as pid");
      if (rows[0].version.includes("PGlite")) {
        // One embedded database, one app process: local eviction is enough.
        stopped = true;
        await current.end();
        markReady();
        return;
      }
      await current.query(`listen ${CHANNEL}`);
      // The same connection carries the other channels (app/db/notices.server.ts), e.g. replies being generated.
      for (const channel of NOTICE_CHANNELS) await current.query(`listen ${channel}`);
      if (stopped || lost) return;
      backendPid = rows[0].pid;
      failures = 0;
      if (connectedOnce) {
        // Whatever was published while this instance was not listening is lost: start fresh.
        authCache.clear();
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

/** Starts this process's listener once (called when the database is first opened). */
export function ensureInvalidationListener(databaseUrl: string) {
  // Started even without auth caches: replies being generated are followed through it too.
  if (listener) return;
  listener = startListener(databaseUrl);
}
