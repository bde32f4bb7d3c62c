import OpenAI from "openai";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "~/data/api-keys.server";
import { getDb } from "~/db/client.server";
import { apiKeys, quotaReservations, usageDaily } from "~/db/schema";
import { admin, APP_ORIGIN, createAccount, setAppEnv } from "../support/app-env";
import { startModelServer, type ModelServer } from "../support/model-server";
import { appHandler } from "../support/remix-app";

/**
 * A thousand calls at once from one key (docs/api.md), through the official
 * `openai` client against the app in-process: the per-minute limit refuses
 * what is over it with 429 and Retry-After, the dollar budget is never
 * overspent and every answer is charged exactly, and every call gets a clean
 * answer in OpenAI's shape — 200, 429, or a 503 "try again" where the database
 * could not take the call in time — nothing else, and none left hanging.
 */
const CALLS = 1_000;
const PER_MINUTE = 200;
/** 0.05 USD a day at 100 USD a million tokens: 500 tokens, 45 answers of 11. */
const BUDGET_MICRO_USD = 50_000;
const MICRO_USD_PER_TOKEN = 100;
const REPORTED = { prompt_tokens: 1, completion_tokens: 10 };

const firebase = admin();
let model: ModelServer;
let handle: (request: Request) => Promise<Response>;
let restoreEnv: () => void;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  restoreEnv = setAppEnv({
    LLM_BASE_URL: model.url,
    LLM_MODELS: "test-model",
    LLM_MODEL_PRICES: `test-model=${MICRO_USD_PER_TOKEN}/${MICRO_USD_PER_TOKEN}`,
    QUOTA_DAILY_MESSAGES: "flood=unlimited",
    BUDGET_DAILY_USD: `flood=${BUDGET_MICRO_USD / 1_000_000}`,
    CHAT_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
    // A thousand calls queue for the database: the test is about exactness, not the 1 s test deadline.
    BACKEND_TIMEOUT_MS: "30000",
    LOG_LEVEL: "warn",
  });
  handle = await appHandler();
});

afterAll(async () => {
  restoreEnv();
  await Promise.all([model.close(), firebase.close()]);
});

describe("a thousand calls at once from one key", () => {
  it(
    "are each answered cleanly: over the minute's limit 429 with Retry-After, over the budget 429 insufficient_quota, nothing overspent",
    { timeout: 300_000 },
    async () => {
      const account = await createAccount(firebase, { role: "flood" });
      const db = await getDb();
      const { key, secret } = (await createApiKey(db, { uid: account.uid, name: "flood", expiresAt: null })) as {
        key: { id: string };
        secret: string;
      };
      const openai = new OpenAI({
        apiKey: secret,
        baseURL: `${APP_ORIGIN}/v1`,
        maxRetries: 0,
        timeout: 240_000,
        fetch: (url, init) => handle(new Request(url, init)),
      });
      model.enqueue(...Array.from({ length: CALLS }, () => ({ type: "text" as const, text: "ok", usage: REPORTED })));

      const results = await Promise.all(
        Array.from({ length: CALLS }, async (_, at) => {
          try {
            await openai.chat.completions.create({
              model: "test-model",
              messages: [{ role: "user", content: `Call ${at}` }],
              max_tokens: 64,
            });
            return { status: 200, type: null, retryAfter: null };
          } catch (error) {
            if (!(error instanceof OpenAI.APIError)) throw error;
            const type = (error.error as { type?: string } | undefined)?.type ?? `${error.message}`;
            return { status: error.status, type, retryAfter: error.headers?.get("retry-after") ?? null };
          }
        }),
      );

      const answered = results.filter((result) => result.status === 200);
      const refused = results.filter((result) => result.status === 429);
      const busy = results.filter((result) => result.status === 503);
      console.log(
        `${CALLS} calls: ${answered.length} answered, ${refused.length} refused (429), ${busy.length} asked to try again (503)`,
      );
      // Every call answered cleanly, in OpenAI's shape with when to try again: a reply; a 429 at the minute's limit or
      // the budget; or, where the database cannot take them all in time (the embedded one serves one query at a time),
      // a 503 "try again" that counted and charged nothing.
      expect(results.filter((result) => ![200, 429, 503].includes(result.status ?? 0))).toEqual([]);
      for (const result of [...refused, ...busy]) expect(Number(result.retryAfter)).toBeGreaterThan(0);
      for (const result of refused) expect(["rate_limit_error", "insufficient_quota"]).toContain(result.type);
      for (const result of busy) expect(result.type).toBe("server_error");
      // The minute's limit: at most PER_MINUTE admitted a minute (the calls may straddle two of the clock's minutes).
      const tooFast = refused.filter((result) => result.type === "rate_limit_error");
      expect(tooFast.length).toBeGreaterThanOrEqual(CALLS - busy.length - 2 * PER_MINUTE);
      expect(refused.some((result) => result.type === "insufficient_quota")).toBe(true);

      // The budget: never overspent; each answer charged exactly what the provider reported; no claim left open.
      const perCall = (REPORTED.prompt_tokens + REPORTED.completion_tokens) * MICRO_USD_PER_TOKEN;
      const [day] = await db
        .select({
          messages: sql<number>`sum(${usageDaily.messages})::int`,
          cost: sql<number>`sum(${usageDaily.costMicroUsd})::bigint`,
        })
        .from(usageDaily)
        .where(eq(usageDaily.uid, account.uid));
      expect(Number(day.cost)).toBe(answered.length * perCall);
      expect(Number(day.cost)).toBeLessThanOrEqual(BUDGET_MICRO_USD);
      expect(day.messages).toBe(answered.length);
      expect(await db.select().from(quotaReservations).where(eq(quotaReservations.uid, account.uid))).toEqual([]);
      const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
      // Every call that found its key counted on it (a 503 before the key was read is not).
      expect(row.requests).toBeGreaterThanOrEqual(answered.length + refused.length);
      expect(row.costMicroUsd).toBe(answered.length * perCall);
      expect(model.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(answered.length);
    },
  );
});
