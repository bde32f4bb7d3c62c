import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hitRateLimit, hitRateLimits } from "~/data/rate-limits.server";
import { isSessionRevoked, revokeSession, sessionHash } from "~/data/revoked-sessions.server";
import { openDatabase, type Db } from "~/db/client.server";
import { testDatabases } from "../support/databases";

describe.each(testDatabases())("data layer on $name", ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(url);
  });
  afterAll(() => db.$client.end());

  it("applies migrations idempotently (a second start changes nothing)", async () => {
    const again = await openDatabase(url);
    await again.$client.end();
  });

  it("rate limit: 50 concurrent hits with a limit of 30 allow exactly 30", async () => {
    const key = `test:${randomUUID()}`;
    // A one-hour window: the run cannot straddle a window boundary.
    const results = await Promise.all(Array.from({ length: 50 }, () => hitRateLimit(db, key, 30, 3600)));
    expect(results.filter((r) => r.allowed)).toHaveLength(30);
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const refused = results.find((r) => !r.allowed)!;
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(3600);
  });

  it("several keys in one statement: each counted exactly, refused when any is over its limit", async () => {
    const [account, address] = [`test:${randomUUID()}`, `test:${randomUUID()}`];
    const rules = [
      { key: account, limit: 5 },
      { key: address, limit: 8 },
    ];
    const results = await Promise.all(Array.from({ length: 10 }, () => hitRateLimits(db, rules, 3600)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    // Another account at the same address: only the address's budget is left to spend.
    const other = [{ key: `test:${randomUUID()}`, limit: 5 }, rules[1]];
    expect((await hitRateLimits(db, other, 3600)).allowed).toBe(false);
    const count = await hitRateLimit(db, address, 100, 3600);
    expect(count.count).toBe(12);
  });

  it("logged-out sessions are listed by hash and found again", async () => {
    const cookie = `cookie-${randomUUID()}`;
    expect(await isSessionRevoked(db, sessionHash(cookie))).toBe(false);
    await revokeSession(db, sessionHash(cookie), new Date(Date.now() + 60_000));
    await revokeSession(db, sessionHash(cookie), new Date(Date.now() + 60_000)); // twice is fine
    expect(await isSessionRevoked(db, sessionHash(cookie))).toBe(true);
    expect(sessionHash(cookie)).not.toContain(cookie);
  });
});
