import { createHash, randomBytes, randomUUID } from "node:crypto";
import { and, desc, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { apiKeys, type ApiKeyRow } from "~/db/schema";
import { writeForAccount } from "./account-lock.server";

/**
 * Personal API keys (docs/decisions/099). A key is `nvk_` and 43 characters
 * of base64url (256 random bits); only its SHA-256 is stored, so a stolen
 * database holds no key. Revoking deletes the row: the next call with the key
 * finds nothing, on every instance at once.
 */

export const API_KEY_PREFIX = "nvk_";
/** How many keys one account may hold: enough for every script and editor, not a table anyone can fill. */
export const MAX_KEYS_PER_ACCOUNT = 50;
/** A key's name, as its owner reads it in the list. */
export const MAX_KEY_NAME_CHARS = 100;
const SHOWN_PREFIX_CHARS = 12;
/** Last-used is written at most this often per key: a busy key does not write on every call. */
const LAST_USED_EVERY = "1 minute";

const KEY_SHAPE = /^nvk_[A-Za-z0-9_-]{43}$/;

export function looksLikeApiKey(secret: string): boolean {
  return KEY_SHAPE.test(secret);
}

/** A key's secret as stored: only its hash, never the secret itself. */
export function hashOf(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
}

function viewOf(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    requests: row.requests,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    costMicroUsd: row.costMicroUsd,
  };
}

/** A new key for the account: the view, and the secret (the only time it exists outside the caller). */
export async function createApiKey(
  db: Db,
  { uid, name, expiresAt }: { uid: string; name: string; expiresAt: Date | null },
): Promise<{ key: ApiKeyView; secret: string } | { tooMany: true }> {
  const secret = API_KEY_PREFIX + randomBytes(32).toString("base64url");
  // Under the account's lock: a key created while the account is being deleted cannot outlive it.
  return writeForAccount(db, uid, async (tx) => {
    // One account's creations in turn, so the cap holds when two arrive at once.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('api-keys'), hashtext(${uid}))`);
    const [{ count }] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(eq(apiKeys.uid, uid));
    if (count >= MAX_KEYS_PER_ACCOUNT) return { tooMany: true as const };
    const [row] = await tx
      .insert(apiKeys)
      .values({
        id: randomUUID(),
        uid,
        name,
        secretHash: hashOf(secret),
        prefix: secret.slice(0, SHOWN_PREFIX_CHARS),
        expiresAt,
      })
      .returning();
    return { key: viewOf(row), secret };
  });
}

export async function listApiKeys(db: Db, uid: string): Promise<ApiKeyView[]> {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.uid, uid)).orderBy(desc(apiKeys.createdAt));
  return rows.map(viewOf);
}

/** Deletes one of the account's keys; false when it has no such key. */
export async function revokeApiKey(db: Db, { uid, id }: { uid: string; id: string }): Promise<boolean> {
  const rows = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.uid, uid)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

export interface KeyHolder {
  keyId: string;
  uid: string;
}

/** The unexpired key with this secret, noting that it was used; undefined when there is none. */
export async function findApiKey(db: Db, secret: string): Promise<KeyHolder | undefined> {
  if (!looksLikeApiKey(secret)) return undefined;
  const [row] = await db
    .select({
      id: apiKeys.id,
      uid: apiKeys.uid,
      usedLately: sql<boolean>`coalesce(${apiKeys.lastUsedAt} >= now() - ${LAST_USED_EVERY}::interval, false)`,
    })
    .from(apiKeys)
    .where(
      and(eq(apiKeys.secretHash, hashOf(secret)), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`))),
    );
  if (!row) return undefined;
  // Noted at most once a minute, and only then a second round trip on the call's path.
  if (row.usedLately) return { keyId: row.id, uid: row.uid };
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(apiKeys.id, row.id),
        or(isNull(apiKeys.lastUsedAt), sql`${apiKeys.lastUsedAt} < now() - ${LAST_USED_EVERY}::interval`),
      ),
    );
  return { keyId: row.id, uid: row.uid };
}

/** What one call through the key spent (a refused call counts as a request with nothing spent). */
export async function countKeyUsage(
  db: Db,
  keyId: string,
  usage: { inputTokens: number; outputTokens: number; costMicroUsd: number },
): Promise<void> {
  await db
    .update(apiKeys)
    .set({
      requests: sql`${apiKeys.requests} + 1`,
      inputTokens: sql`${apiKeys.inputTokens} + ${usage.inputTokens}`,
      outputTokens: sql`${apiKeys.outputTokens} + ${usage.outputTokens}`,
      costMicroUsd: sql`${apiKeys.costMicroUsd} + ${usage.costMicroUsd}`,
    })
    .where(eq(apiKeys.id, keyId));
}
