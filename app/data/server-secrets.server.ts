import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { serverSecrets } from "~/db/schema";

/**
 * A secret every instance shares without an operator configuring one: made
 * at first use and kept in PostgreSQL (server_secrets). The first instance to
 * insert it wins; the others read what it wrote. Read once per process.
 */
const cache = new Map<string, Promise<Buffer>>();

export function serverSecret(db: Db, name: string): Promise<Buffer> {
  let secret = cache.get(name);
  if (!secret) {
    secret = loadOrMake(db, name);
    // A failed read is tried again by the next request, not remembered.
    secret.catch(() => cache.delete(name));
    cache.set(name, secret);
  }
  return secret;
}

async function loadOrMake(db: Db, name: string): Promise<Buffer> {
  await db
    .insert(serverSecrets)
    .values({ name, secret: randomBytes(32).toString("base64url") })
    .onConflictDoNothing();
  const [row] = await db
    .select({ secret: serverSecrets.secret })
    .from(serverSecrets)
    .where(eq(serverSecrets.name, name));
  return Buffer.from(row.secret, "base64url");
}
