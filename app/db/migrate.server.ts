import path from "node:path";
import { readMigrationFiles, type MigrationMeta } from "drizzle-orm/migrator";
import type pg from "pg";

/**
 * The SQL migrations in app/db/migrations, applied at start
 * (docs/decisions/097). Every pending one is applied in ONE transaction that
 * first takes a transaction-scoped advisory lock: instances starting together
 * take turns, and the lock ends with the transaction whatever connection it
 * ran on — through a transaction pooler too, where a session lock would be
 * taken on one server connection and its unlock sent on another, leaving it
 * held. The lock also covers reading which migrations are applied, which
 * drizzle's own migrator does outside its transaction.
 *
 * The bookkeeping is drizzle's (drizzle.__drizzle_migrations, one row per
 * migration: its file's hash and its journal time), so a database migrated
 * by drizzle's migrator or by drizzle-kit goes on from where it is.
 */

// Relative to the working directory: operators run remix-serve from the repo
// root, as npm start and the tests do.
const MIGRATIONS_DIR = path.resolve(process.env.MIGRATIONS_DIR ?? "app/db/migrations");

// Any fixed number: the same key the session lock of earlier versions took, so
// an instance of each kind starting together still take turns.
const MIGRATION_LOCK = 74_210_001;

export async function applyMigrations(client: pg.ClientBase): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR });
  await client.query("begin");
  try {
    await client.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    const last = await lastApplied(client);
    for (const migration of migrations) if (migration.folderMillis > last) await apply(client, migration);
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  }
}

/** The journal time of the newest migration applied; -1 on a new database. */
async function lastApplied(client: pg.ClientBase): Promise<number> {
  await client.query("create schema if not exists drizzle");
  await client.query(
    "create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)",
  );
  const { rows } = await client.query<{ created_at: string }>(
    "select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1",
  );
  return rows.length > 0 ? Number(rows[0].created_at) : -1;
}

async function apply(client: pg.ClientBase, migration: MigrationMeta) {
  for (const statement of migration.sql) await client.query(statement);
  await client.query("insert into drizzle.__drizzle_migrations (hash, created_at) values ($1, $2)", [
    migration.hash,
    migration.folderMillis,
  ]);
}
