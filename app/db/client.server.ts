import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import { getConfig, type Config } from "~/config.server";
import { logBackendFault } from "~/deadline.server";
import { watchPool } from "~/metrics/metrics.server";
import { applyMigrations } from "./migrate.server";
import { ensureNotices } from "./notices.server";
import * as schema from "./schema";

export type Db = NodePgDatabase<typeof schema> & { $client: pg.Pool };

/**
 * Opens a pool on `connectionString` and applies pending migrations, over
 * `migrateWith` when given (a direct connection behind a pooler,
 * docs/decisions/097), else over one of the pool's connections.
 */
export async function openDatabase(
  connectionString: string,
  { timeoutMs = 5_000, max = 10, migrateWith }: { timeoutMs?: number; max?: number; migrateWith?: string } = {},
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
  await (migrateWith ? migrateOver(migrateWith, timeoutMs) : migrateOverPool(pool));
  return db;
}

async function migrateOverPool(pool: pg.Pool) {
  const client = await pool.connect();
  try {
    await applyMigrations(client);
  } finally {
    client.release();
  }
}

/** A client of its own, ended once the migrations are in: the direct connection serves nothing else here. */
async function migrateOver(connectionString: string, timeoutMs: number) {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  client.on("error", (error) => logBackendFault("postgres", "the migrations' connection was lost", error));
  await client.connect();
  try {
    await applyMigrations(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Where the LISTEN connection goes, which needs a session of its own:
 * DATABASE_DIRECT_URL when given; else DATABASE_URL, unless that is a
 * transaction pooler — then nothing listens and notices are polled.
 */
export function listenUrl(config: Pick<Config, "databaseUrl" | "databaseDirectUrl" | "databasePoolMode">) {
  if (config.databaseDirectUrl) return config.databaseDirectUrl;
  return config.databasePoolMode === "session" ? config.databaseUrl : undefined;
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
    const config = getConfig();
    const { databaseUrl, backendTimeoutMs, databasePoolSize } = config;
    if (!databaseUrl) {
      return Promise.reject(new Error("DATABASE_URL is not set (npm start sets it in local mode)."));
    }
    ready = openDatabase(databaseUrl, {
      timeoutMs: Math.max(backendTimeoutMs, 5_000),
      max: databasePoolSize,
      migrateWith: config.databaseDirectUrl,
    }).then(
      (db) => {
        watchPool(db.$client); // its use on /metrics
        // Auth caches evicted, replies followed and lists kept live on every instance.
        ensureNotices({ pool: db.$client, listenUrl: listenUrl(config) });
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
