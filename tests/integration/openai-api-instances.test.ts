import OpenAI from "openai";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../../scripts/perf/app-under-test";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { databaseTargets, titled, type DatabaseAccess } from "../support/database-targets";
import { startModelServer, type ModelServer } from "../support/model-server";

/**
 * The OpenAI-compatible API (docs/api.md) on two remix-serve instances on one
 * PostgreSQL server, driven by the official `openai` client over HTTP: 50
 * calls at once from one key, split across both, against the daily quota and
 * against a budget in dollars — exactly the quota's number succeed, money
 * spent never exceeds the budget — and an admin's switch made on one instance
 * refusing the key on the other at its next call. Streaming and embeddings
 * go through the real server too (its streams are Remix's polyfills).
 * Skipped without TEST_DATABASE_URL (CI sets it); the pooler ways need pgbouncer.
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const CALLS = 50;
const QUOTA = 20;
/** 0.05 USD a day, at 100 USD a million tokens: 500 tokens. */
const BUDGET_MICRO_USD = 50_000;
const MICRO_USD_PER_TOKEN = 100;
/** What the scripted provider reports for every reply: 11 tokens, 1,100 micro-USD. */
const REPORTED = { prompt_tokens: 1, completion_tokens: 10 };

for (const [index, target] of databaseTargets().entries()) {
  describe.skipIf(target.unavailable)(titled("the API across instances", target), { timeout: 180_000 }, () => {
    const firebase = admin();
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let access: DatabaseAccess;
    let model: ModelServer;
    const apps: AppProcess[] = [];

    beforeAll(async () => {
      await buildApp();
      database = await freshDatabase(serverUrl!, `api_${index}`);
      access = await target.start();
      model = await startModelServer({ models: ["test-model"] });
      const env = {
        ...access.env(database.url),
        LLM_BASE_URL: model.url,
        LLM_MODELS: "test-model",
        LLM_EMBEDDING_MODEL: "embed-model",
        LLM_MODEL_PRICES: `test-model=${MICRO_USD_PER_TOKEN}/${MICRO_USD_PER_TOKEN}`,
        QUOTA_DAILY_MESSAGES: `quota20=${QUOTA};budgeted=unlimited`,
        BUDGET_DAILY_USD: `budgeted=${BUDGET_MICRO_USD / 1_000_000}`,
        CHAT_RATE_LIMIT_PER_MINUTE: "1000",
        CHAT_RATE_LIMIT_PER_ADDRESS: "100000",
        // 25 calls at once per instance queue for its connections: the test is about exactness, not the 1 s test deadline.
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

    const client = (app: AppProcess, apiKey: string) =>
      new OpenAI({ apiKey, baseURL: `${app.origin}/v1`, maxRetries: 0, timeout: 60_000 });

    /** A key for a new account of the role, made through the dashboard as a user would. */
    async function keyFor(role: string) {
      const account = await createAccount(firebase, { role, prefix: role });
      const cookie = await sessionCookieFor(account);
      const app = apps[0];
      const response = await fetch(`${app.origin}/dashboard?_data=routes/dashboard`, {
        method: "POST",
        headers: { Cookie: cookie, Origin: app.origin, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "create-api-key", name: "load", expiry: "never" }).toString(),
      });
      const body = (await response.json()) as { apiKey: { created: { secret: string } } };
      return { account, secret: body.apiKey.created.secret };
    }

    /** 50 calls at once, alternating between the instances: each call's status and error type. */
    async function fiftyAtOnce(secret: string) {
      model.enqueue(...Array.from({ length: CALLS }, () => ({ type: "text" as const, text: "ok", usage: REPORTED })));
      return Promise.all(
        Array.from({ length: CALLS }, async (_, at) => {
          try {
            await client(apps[at % 2], secret).chat.completions.create({
              model: "test-model",
              messages: [{ role: "user", content: `Call ${at}` }],
              max_tokens: 64,
            });
            return { status: 200, type: null, retryAfter: null };
          } catch (error) {
            if (!(error instanceof OpenAI.APIError)) throw error;
            const type = (error.error as { type?: string } | undefined)?.type ?? null;
            return { status: error.status, type, retryAfter: error.headers?.get("retry-after") ?? null };
          }
        }),
      );
    }

    async function spentBy(uid: string) {
      const sql = new pg.Client({ connectionString: database.url });
      await sql.connect();
      try {
        const { rows } = await sql.query<{ messages: string; cost: string; open: string; requests: string }>(
          "select (select coalesce(sum(messages), 0) from usage_daily where uid = $1) as messages, " +
            "(select coalesce(sum(cost_micro_usd), 0) from usage_daily where uid = $1) as cost, " +
            "(select count(*) from quota_reservations where uid = $1) as open, " +
            "(select coalesce(sum(requests), 0) from api_keys where uid = $1) as requests",
          [uid],
        );
        return {
          messages: Number(rows[0].messages),
          cost: Number(rows[0].cost),
          open: Number(rows[0].open),
          requests: Number(rows[0].requests),
        };
      } finally {
        await sql.end();
      }
    }

    it(`50 calls at once over two instances against a quota of ${QUOTA}: exactly ${QUOTA} answered, the rest 429 insufficient_quota`, async () => {
      model.reset();
      const { account, secret } = await keyFor("quota20");
      const results = await fiftyAtOnce(secret);
      const answered = results.filter((result) => result.status === 200);
      const refused = results.filter((result) => result.status === 429);
      expect(answered).toHaveLength(QUOTA);
      expect(refused).toHaveLength(CALLS - QUOTA);
      for (const result of refused) {
        expect(result.type).toBe("insufficient_quota");
        expect(Number(result.retryAfter)).toBeGreaterThan(0);
      }
      expect(model.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(QUOTA);
      await expect.poll(() => spentBy(account.uid)).toMatchObject({ messages: QUOTA, open: 0, requests: CALLS });
    });

    it("50 calls at once over two instances against a dollar budget: money spent never exceeds it, each answer charged exactly", async () => {
      model.reset();
      const { account, secret } = await keyFor("budgeted");
      const results = await fiftyAtOnce(secret);
      const answered = results.filter((result) => result.status === 200);
      const refused = results.filter((result) => result.status === 429);
      expect(answered.length + refused.length).toBe(CALLS);
      expect(answered.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      for (const result of refused) expect(result.type).toBe("insufficient_quota");
      const perCall = (REPORTED.prompt_tokens + REPORTED.completion_tokens) * MICRO_USD_PER_TOKEN;
      await expect.poll(() => spentBy(account.uid)).toMatchObject({ open: 0, requests: CALLS });
      const spent = await spentBy(account.uid);
      expect(spent.cost).toBe(answered.length * perCall);
      expect(spent.cost).toBeLessThanOrEqual(BUDGET_MICRO_USD);
      expect(spent.messages).toBe(answered.length);
    });

    it("streams and embeds through remix-serve; an admin's switch on one instance refuses the key on the other at once", async () => {
      model.reset();
      const { secret } = await keyFor("quota20");
      const [one, other] = [client(apps[0], secret), client(apps[1], secret)];
      // Two in a row: the second goes over the connection to the provider that the first left open.
      for (const said of ["Streamed through the server", "And again on the same connection"]) {
        model.enqueue({ type: "text", text: said, usage: REPORTED });
        const stream = await one.chat.completions.create({
          model: "test-model",
          messages: [{ role: "user", content: "Stream" }],
          stream: true,
        });
        let text = "";
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
        expect(text).toBe(said);
      }
      const embedded = await other.embeddings.create({ model: "embed-model", input: ["a b", "c"] });
      expect(embedded.data).toHaveLength(2);
      expect(embedded.usage.prompt_tokens).toBe(3);

      const boss = await createAccount(firebase, { role: "admin", prefix: "admin" });
      const adminCookie = await sessionCookieFor(boss);
      const switched = await fetch(`${apps[0].origin}/admin/api?_data=routes/admin.api`, {
        method: "POST",
        headers: { Cookie: adminCookie, Origin: apps[0].origin, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ roleKey: "quota20", enabled: "off" }).toString(),
      });
      expect(switched.status).toBe(200);
      const refused = await other.models.list().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    });
  });
}
