import fs from "node:fs";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "~/db/client.server";
import { AUTH_NOTICE_CHANNEL } from "~/db/notices.server";
import { insertNotice, startNoticePoller, type NoticePoller } from "~/db/notice-log.server";
import { freshDatabase } from "../../scripts/perf/app-under-test";
import { poolerUnavailable, startPgBouncer, type PgBouncer } from "../support/pgbouncer";
import { waitUntil } from "./chat-support";

/**
 * The app's database through PgBouncer in transaction mode
 * (docs/decisions/097): it opens and migrates a new database through the
 * pooler, several instances at once, with drizzle's own bookkeeping and no
 * lock left behind; and the notices kept as rows, which instances poll for
 * when nothing can LISTEN, reach every process in order, even when a later
 * row commits first. The multi-instance suites run through the pooler too
 * (tests/support/database-targets.ts).
 * Needs the PostgreSQL server (TEST_DATABASE_URL) and pgbouncer.
 */
const skipped = poolerUnavailable();
const serverUrl = process.env.TEST_DATABASE_URL!;
const JOURNAL = JSON.parse(fs.readFileSync("app/db/migrations/meta/_journal.json", "utf8")) as {
  entries: { when: number }[];
};

/** The migrations a database has applied, as drizzle's table holds them. */
async function appliedMigrations(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ hash: string; created_at: string }>(
      "select hash, created_at from drizzle.__drizzle_migrations order by created_at",
    );
    return rows.map((row) => ({ hash: row.hash, createdAt: Number(row.created_at) }));
  } finally {
    await client.end();
  }
}

describe.skipIf(skipped)(`PostgreSQL through a transaction pooler${skipped ? ` (${skipped})` : ""}`, () => {
  let pooler: PgBouncer;
  const databases: Awaited<ReturnType<typeof freshDatabase>>[] = [];
  const opened: Db[] = [];

  beforeAll(async () => {
    pooler = await startPgBouncer();
  });

  afterAll(async () => {
    await Promise.all(opened.map((db) => db.$client.end()));
    await pooler?.stop();
    for (const database of databases) await database.drop();
  });

  async function database(purpose: string) {
    const created = await freshDatabase(serverUrl, `pooler_${purpose}`);
    databases.push(created);
    return created;
  }

  async function open(url: string) {
    const db = await openDatabase(url, { max: 3 });
    opened.push(db);
    return db;
  }

  it("three instances open and migrate a new database through it at once: every migration once, no lock left", async () => {
    const { url } = await database("migrate");
    const [db] = await Promise.all([1, 2, 3].map(() => open(pooler.url(url))));

    expect(await appliedMigrations(url)).toHaveLength(JOURNAL.entries.length);
    const { rows } = await db.$client.query<{ held: number }>(
      "select count(*)::int as held from pg_locks where locktype = 'advisory' and database = " +
        "(select oid from pg_database where datname = current_database())",
    );
    expect(rows[0].held).toBe(0);
    // And it is in use: a table of the last migration answers.
    await expect(db.$client.query("select count(*) from polled_notices")).resolves.toBeDefined();
  });

  it("keeps drizzle's bookkeeping: the same rows as drizzle's migrator, which it then goes on from", async () => {
    const ours = await database("ours");
    const theirs = await database("theirs");
    await open(pooler.url(ours.url));
    const client = new pg.Client({ connectionString: theirs.url });
    await client.connect();
    try {
      await migrate(drizzle(client), { migrationsFolder: "app/db/migrations" });
    } finally {
      await client.end();
    }
    const applied = await appliedMigrations(theirs.url);
    expect(await appliedMigrations(ours.url)).toEqual(applied);

    await open(pooler.url(theirs.url)); // a database drizzle migrated: nothing to apply
    expect(await appliedMigrations(theirs.url)).toEqual(applied);
  });

  describe("notices kept as rows", () => {
    let db: Db;
    let sql: pg.Client;
    let poller: NoticePoller;
    const heard: string[] = [];
    let missed = 0;

    beforeAll(async () => {
      const { url } = await database("notices");
      db = await open(pooler.url(url));
      sql = new pg.Client({ connectionString: pooler.url(url) });
      await sql.connect();
      poller = startNoticePoller(db.$client, {
        dispatch: (channel, payload) => heard.push(`${channel} ${payload}`),
        missed: () => missed++,
        everyMs: 50,
      });
      await poller.ready;
    });

    afterAll(async () => {
      poller?.stop();
      await sql?.end();
    });

    const publishElsewhere = (client: Pick<pg.Client, "query">, payload: string) =>
      client.query("insert into polled_notices (channel, payload, origin) values ($1, $2, 'another-instance')", [
        AUTH_NOTICE_CHANNEL,
        payload,
      ]);

    it("hands other processes' notices over in order, and not this process's own", async () => {
      await publishElsewhere(sql, "first");
      await insertNotice(db.$client, AUTH_NOTICE_CHANNEL, "mine");
      await publishElsewhere(sql, "second");
      await waitUntil("both notices", () => heard.length >= 2);
      expect(heard).toEqual([`${AUTH_NOTICE_CHANNEL} first`, `${AUTH_NOTICE_CHANNEL} second`]);
    });

    it("a notice committed after a later one is still handed over", async () => {
      heard.length = 0;
      const slow = await db.$client.connect();
      try {
        await slow.query("begin");
        await publishElsewhere(slow, "slow"); // its id is taken now, seen only at commit
        await publishElsewhere(sql, "fast");
        await waitUntil("the later notice", () => heard.length === 1);
        await slow.query("commit");
      } finally {
        slow.release();
      }
      await waitUntil("the earlier one too", () => heard.length === 2);
      expect(heard).toEqual([`${AUTH_NOTICE_CHANNEL} fast`, `${AUTH_NOTICE_CHANNEL} slow`]);
      expect(missed).toBe(0);
    });
  });
});
