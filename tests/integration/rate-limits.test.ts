import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hitRateLimit, hitRateLimits } from "~/data/rate-limits.server";
import { isSessionRevoked, revokeSession, sessionHash } from "~/auth/revoked-sessions.server";
import { openDatabase, type Db } from "~/db/client.server";
import { testDatabases } from "../support/databases";

describe.each(testDatabases())("data layer on $name", ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(url);
  });
  afterAll(() => db.$client.end());

  it("applies every migration once, and a second start changes nothing", async () => {
    const journal = JSON.parse(fs.readFileSync("app/db/migrations/meta/_journal.json", "utf8")) as {
      entries: unknown[];
    };
    const applied = async () =>
      (await db.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`)).rows[0].n;
    const columns = async () =>
      (
        await db.execute<{ table_name: string; column_name: string; data_type: string }>(sql`
          select table_name, column_name, data_type from information_schema.columns
          where table_schema = 'public' order by table_name, column_name`)
      ).rows;
    expect(await applied()).toBe(journal.entries.length);
    const before = await columns();
    expect(before.map((column) => column.table_name)).toEqual(
      expect.arrayContaining(["rate_limits", "messages", "attachments"]),
    );

    const again = await openDatabase(url);
    await again.$client.end();

    expect(await applied()).toBe(journal.entries.length);
    expect(await columns()).toEqual(before);
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
