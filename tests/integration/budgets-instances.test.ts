import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../../scripts/perf/app-under-test";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { databaseTargets, titled, type DatabaseAccess } from "../support/database-targets";
import { startModelServer, type ModelServer } from "../support/model-server";
import { firstMessage } from "./chat-support";

/**
 * Budgets under load (docs/decisions/072): 50 messages at once from
 * one user, spread over two remix-serve instances on one PostgreSQL server,
 * each asking for a long reply. Spend never exceeds the budget by more than
 * one reply's hold, and no refused message reaches the model. Run directly
 * and through a transaction pooler, with and without a direct URL
 * (docs/decisions/097): the per-user lock is transaction-scoped either way.
 * Needs a PostgreSQL server: skipped without TEST_DATABASE_URL (CI sets it),
 * and pgbouncer for the pooler.
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const BUDGET = 5_000;
const MAX_OUTPUT = 200;

for (const [index, target] of databaseTargets().entries()) {
  describe.skipIf(target.unavailable)(titled("budgets across instances", target), { timeout: 120_000 }, () => {
    const firebase = admin();
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let access: DatabaseAccess;
    let model: ModelServer;
    const apps: AppProcess[] = [];

    beforeAll(async () => {
      await buildApp();
      database = await freshDatabase(serverUrl!, `budgets_${index}`);
      access = await target.start();
      model = await startModelServer({ models: ["test-model"] });
      const env = {
        ...access.env(database.url),
        LLM_BASE_URL: model.url,
        LLM_MODELS: "test-model",
        BUDGET_DAILY_TOKENS: `budgeted=${BUDGET}`,
        LLM_MAX_OUTPUT_TOKENS: String(MAX_OUTPUT),
        CHAT_RATE_LIMIT_PER_MINUTE: "1000",
        CHAT_RATE_LIMIT_PER_ADDRESS: "1000",
        // 25 sends at once per instance queue for its 10 connections: the test is about exactness, not the 1 s test deadline.
        BACKEND_TIMEOUT_MS: "10000",
        LOG_LEVEL: "warn",
      };
      apps.push(...(await Promise.all([startApp({ env }), startApp({ env })])));
    }, 240_000);

    afterAll(async () => {
      await Promise.all(apps.map((app) => app.kill("SIGKILL")));
      await model?.close();
      await access?.stop();
      await database?.drop();
      await firebase.close();
    });

    it("50 concurrent messages over two instances never spend more than the budget plus one reply's hold", async () => {
      const account = await createAccount(firebase, { role: "budgeted", prefix: "budget" });
      const cookie = await sessionCookieFor(account);
      const long = Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ");
      model.enqueue(...Array.from({ length: 50 }, () => ({ type: "text" as const, text: long })));

      const results = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const app = apps[i % 2];
          const response = await fetch(`${app.origin}/api/chat`, {
            method: "POST",
            headers: { Cookie: cookie, Origin: app.origin, "Content-Type": "application/json" },
            body: JSON.stringify(firstMessage(`Message ${i}: tell me a long story about ${i}`)),
          });
          const body = await response.text();
          return { status: response.status, body };
        }),
      );
      const accepted = results.filter((result) => result.status === 200);
      const refused = results.filter((result) => result.status === 429);
      // Anything else may only be a busy store's "try again" (a send refused before it counted or held anything).
      for (const result of results.filter((other) => other.status !== 200 && other.status !== 429)) {
        expect(`${result.status} ${result.body}`).toMatch(/^503 .*try again/);
      }
      expect(accepted.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      for (const result of refused) expect(JSON.parse(result.body)).toMatchObject({ kind: "budget" });

      // Every reply asked for at most what the budget left, and no refused message reached the model.
      const calls = model.requests.filter((request) => request.path === "/v1/chat/completions");
      expect(calls).toHaveLength(accepted.length);
      for (const call of calls) expect(call.body?.max_tokens).toBeLessThanOrEqual(MAX_OUTPUT);

      const sql = new pg.Client({ connectionString: database.url });
      await sql.connect();
      try {
        const { rows } = await sql.query<{ tokens: string; held: string }>(
          "select (select coalesce(sum(input_tokens + output_tokens), 0) from usage_daily where uid = $1) as tokens, " +
            "(select count(*) from quota_reservations where uid = $1 and held_tokens > 0) as held",
          [account.uid],
        );
        const largestHold = Math.max(...calls.map((call) => (call.body?.max_tokens ?? 0) + 200));
        expect(Number(rows[0].tokens)).toBeLessThanOrEqual(BUDGET + largestHold);
        expect(Number(rows[0].tokens)).toBeGreaterThan(BUDGET / 2);
        expect(Number(rows[0].held)).toBe(0); // every hold was settled
      } finally {
        await sql.end();
      }
    });
  });
}
