import path from "node:path";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { getConfig } from "~/config.server";
import { logBackendFault } from "~/deadline.server";
import { watchPool } from "~/metrics/metrics.server";
import { ensureNoticeListener } from "./notices.server";
import * as schema from "./schema";

export type Db = NodePgDatabase<typeof schema> & { $client: pg.Pool };

// Relative to the working directory: operators run remix-serve from the repo
// root, as npm start and the tests do.
const MIGRATIONS_DIR = path.resolve(process.env.MIGRATIONS_DIR ?? "app/db/migrations");

// Any fixed number: serialises migrations when several instances start at once.
const MIGRATION_LOCK = 74_210_001;

export async function openDatabase(
  connectionString: string,
  { timeoutMs = 5_000, max = 10 }: { timeoutMs?: number; max?: number } = {},
): Promise<Db> {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    // On SIGTERM remix-serve stops listening and lets open replies finish;
    // idle connections must not then hold the process for their idle timeout.
    allowExitOnIdle: true,
  });
  // A client that loses its server must not crash the process: idle ones
  // report through the pool, checked-out ones (mid-transaction) through
  // their own listener; the query in flight fails with the same error.
  pool.on("error", (error) => logBackendFault("postgres", "an idle connection was lost", error));
  pool.on("connect", (client) =>
    client.on("error", (error) => logBackendFault("postgres", "a connection was lost", error)),
  );
  const db = drizzle(pool, { schema }) as Db;
  await applyMigrations(pool);
  return db;
}

async function applyMigrations(pool: pg.Pool) {
  const client = await pool.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

/**
 * The app's database, one per process. It hangs off globalThis because
 * `npm run dev` has remix-serve import every new build into the same process
 * (scripts/dev.ts): a module-level variable would open a new pool, and a new
 * listening connection, at every save.
 */
const perProcess = globalThis as typeof globalThis & { nuvaraDatabase?: Promise<Db> };

/** The app's database, migrated on first use. */
export function getDb(): Promise<Db> {
  let ready = perProcess.nuvaraDatabase;
  if (!ready) {
    const { databaseUrl, backendTimeoutMs, databasePoolSize } = getConfig();
    if (!databaseUrl) {
      return Promise.reject(new Error("DATABASE_URL is not set (npm start sets it in local mode)."));
    }
    ready = openDatabase(databaseUrl, { timeoutMs: Math.max(backendTimeoutMs, 5_000), max: databasePoolSize }).then(
      (db) => {
        watchPool(db.$client); // its use on /metrics
        ensureNoticeListener(databaseUrl); // auth caches evicted and replies followed at once on every instance
        return db;
      },
      (error) => {
        perProcess.nuvaraDatabase = undefined; // try again on the next request
        throw error;
      },
    );
    perProcess.nuvaraDatabase = ready;
  }
  return ready;
}
