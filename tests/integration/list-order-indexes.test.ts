import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "~/db/client.server";
import { testDatabases } from "../support/databases";

/**
 * A list read newest first (ORDER BY … DESC, which puts nulls first) is read
 * in index order only from an index that sorts the same way: drizzle-kit
 * writes a bare .desc() as DESC NULLS LAST, which neither direction of a scan
 * gives (migrations 0028 and 0031; docs/benchmarks.md, "Scale curves").
 */
describe.each(testDatabases())("list order indexes on $name", ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(url);
  });
  afterAll(() => db.$client.end());

  it("no index sorts a column DESC NULLS LAST", async () => {
    const { rows } = await db.execute<{ indexname: string }>(
      sql`select indexname from pg_indexes where schemaname = 'public' and indexdef ilike '%desc nulls last%' order by 1`,
    );
    expect(rows.map((row) => row.indexname)).toEqual([]);
  });

  it("the audit, feedback, share and API key lists can be read in their index's order", async () => {
    const lists = [
      ["role_audit_created_idx", sql`select * from role_audit order by created_at desc, id desc limit 50`],
      ["account_audit_created_idx", sql`select * from account_audit order by created_at desc, id desc limit 50`],
      ["admin_audit_created_idx", sql`select * from admin_audit order by created_at desc, id desc limit 50`],
      [
        "message_feedback_updated_idx",
        sql`select * from message_feedback order by updated_at desc, message_id desc limit 50`,
      ],
      [
        "shared_conversations_uid_idx",
        sql`select * from shared_conversations where uid = 'u' order by created_at desc limit 200`,
      ],
      ["api_keys_uid_idx", sql`select * from api_keys where uid = 'u' order by created_at desc`],
    ] as const;
    for (const [index, query] of lists) {
      // Everything but an index scan priced out: a Sort would show the index cannot give the order.
      const plan = await db.transaction(async (tx) => {
        for (const off of ["enable_seqscan", "enable_bitmapscan", "enable_sort"]) {
          await tx.execute(sql.raw(`set local ${off} = off`));
        }
        const { rows } = await tx.execute<{ "QUERY PLAN": string }>(sql`explain ${query}`);
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });
      expect(plan, index).toContain(`Index Scan using ${index}`);
      expect(plan, index).not.toContain("Sort");
    }
  });
});
