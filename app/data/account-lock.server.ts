import { sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { deletedAccounts } from "~/db/schema";

/**
 * Deletion wins (docs/decisions/045): a per-account lock between the writers
 * of a user's rows and the deletion of the account.
 *
 * Every write of per-user rows that can race with a deletion (a chat request
 * in flight creating its conversation, counting its message, storing its
 * reply; a prompt tool opening a conversation; preferences) runs in
 * `writeForAccount`: a transaction that takes the account's lock SHARED, so
 * writers never wait for one another, then checks the tombstone. Deletion
 * takes the same lock EXCLUSIVELY, writes the tombstone and deletes every row
 * in one transaction. So a write either commits before the deletion (and is
 * deleted with the rest) or sees the tombstone and writes nothing.
 *
 * The tombstone is read in a statement of its own after the lock is held: in
 * READ COMMITTED each statement sees what was committed when it started, and
 * a statement that waited for the lock started before the deletion committed.
 */

/** Advisory locks are one key space per database: this first key names ours (the second is the uid's hash). */
const ACCOUNT_LOCK_SPACE = 74_210_045;

/** The account was deleted: nothing of it may be written any more. */
export class AccountDeletedError extends Error {
  constructor(readonly uid: string) {
    super("the account was deleted");
  }
}

/** The transaction handle drizzle passes to `db.transaction`'s callback. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * Runs `work` in a transaction holding the account's lock shared, after
 * checking it was not deleted; throws AccountDeletedError (writing nothing) if it was.
 * Keep `work` to a few statements: the deletion waits for it.
 */
export async function writeForAccount<T>(db: Db, uid: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock_shared(${ACCOUNT_LOCK_SPACE}, hashtext(${uid}))`);
    const found = await tx.execute<{ deleted: boolean }>(
      sql`select exists (select 1 from ${deletedAccounts} where uid = ${uid}) as deleted`,
    );
    if (found.rows[0]?.deleted) throw new AccountDeletedError(uid);
    return work(tx);
  });
}

/**
 * Runs `work` (the deletion of the account's rows) in a transaction holding
 * the account's lock exclusively, with the tombstone written first: it waits
 * for writes in progress, and every later write sees the tombstone.
 */
export async function deleteForAccount<T>(db: Db, uid: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ACCOUNT_LOCK_SPACE}, hashtext(${uid}))`);
    await tx.insert(deletedAccounts).values({ uid }).onConflictDoNothing();
    return work(tx);
  });
}

export function isAccountDeleted(error: unknown): error is AccountDeletedError {
  return error instanceof AccountDeletedError;
}
