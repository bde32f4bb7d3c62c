import { poolerUnavailable, startPgBouncer, type PgBouncer } from "./pgbouncer";

/**
 * The ways the multi-instance tests reach the PostgreSQL server
 * (docs/decisions/097): directly, or through PgBouncer in transaction mode —
 * with a direct URL for the LISTEN connection and migrations, or without one,
 * notices then polled. Each suite runs once per way: the same tests, not copies.
 */
export interface DatabaseTarget {
  name: string;
  /** Why it cannot run here (the describe's title says so), or null. */
  unavailable: string | null;
  /** What an instance logs once its notices are in place (LISTEN connected, or the first poll read). */
  noticesReady: RegExp;
  /** Starts what it needs; `env` then gives an instance's variables for a database on the server. */
  start(): Promise<DatabaseAccess>;
}

export interface DatabaseAccess {
  env(databaseUrl: string): Record<string, string>;
  stop(): Promise<void>;
}

const LISTENING = /auth invalidation listener connected/;

function throughPgBouncer(env: (pooled: string, direct: string) => Record<string, string>) {
  return async (): Promise<DatabaseAccess> => {
    const pooler: PgBouncer = await startPgBouncer();
    return { env: (databaseUrl) => env(pooler.url(databaseUrl), databaseUrl), stop: () => pooler.stop() };
  };
}

export function databaseTargets(): DatabaseTarget[] {
  const serverMissing = process.env.TEST_DATABASE_URL ? null : "skipped: needs TEST_DATABASE_URL (CI sets it)";
  return [
    {
      name: "directly",
      unavailable: serverMissing,
      noticesReady: LISTENING,
      start: async () => ({ env: (databaseUrl) => ({ DATABASE_URL: databaseUrl }), stop: async () => undefined }),
    },
    {
      name: "through PgBouncer (transaction mode), listening on DATABASE_DIRECT_URL",
      unavailable: poolerUnavailable(),
      noticesReady: LISTENING,
      start: throughPgBouncer((pooled, direct) => ({
        DATABASE_URL: pooled,
        DATABASE_DIRECT_URL: direct,
        DATABASE_POOL_MODE: "transaction",
      })),
    },
    {
      name: "through PgBouncer (transaction mode), polling",
      unavailable: poolerUnavailable(),
      noticesReady: /notices polled every/,
      start: throughPgBouncer((pooled) => ({ DATABASE_URL: pooled, DATABASE_POOL_MODE: "transaction" })),
    },
  ];
}

/** The describe's title: the suite, the way, and why it is skipped when it is. */
export function titled(suite: string, target: DatabaseTarget): string {
  return `${suite}, ${target.name}${target.unavailable ? ` (${target.unavailable})` : ""}`;
}
