import { createHash } from "node:crypto";
import { eq, lt } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { revokedSessions } from "~/db/schema";

/** Logged-out sessions, shared by every server instance (ADR 002). */
export function sessionHash(cookie: string): string {
  return createHash("sha256").update(cookie).digest("base64url");
}

export async function revokeSession(db: Db, tokenHash: string, expiresAt: Date) {
  await db.insert(revokedSessions).values({ tokenHash, expiresAt }).onConflictDoNothing();
  if (Math.random() < 0.05) {
    await db.delete(revokedSessions).where(lt(revokedSessions.expiresAt, new Date()));
  }
}

export async function isSessionRevoked(db: Db, tokenHash: string): Promise<boolean> {
  const rows = await db
    .select({ tokenHash: revokedSessions.tokenHash })
    .from(revokedSessions)
    .where(eq(revokedSessions.tokenHash, tokenHash))
    .limit(1);
  return rows.length > 0;
}
