import OpenAI from "openai";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { apiKeys, usageDaily } from "~/db/schema";
import { createApiKey } from "~/data/api-keys.server";
import { API_BODY_MAX_BYTES } from "~/api/chat-completions.server";
import { embedText, startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, createAccount, setAppEnv } from "../support/app-env";
import { appHandler } from "../support/remix-app";

/**
 * POST /v1/embeddings (docs/api.md) driven by the official `openai` client:
 * the configured embeddings model's vectors in OpenAI's shape (floats or
 * base64, strings or token ids, `dimensions`), usage charged to the account's
 * day and to the key, the same quota as the chat, and OpenAI's errors.
 */

const firebase = admin();
let model: ModelServer;
let handle: (request: Request) => Promise<Response>;
let restoreEnv: () => void;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"], embeddingDimensions: 16 });
  restoreEnv = setAppEnv({
    LLM_BASE_URL: model.url,
    LLM_MODELS: "test-model",
    LLM_EMBEDDING_MODEL: "embed-model",
    LLM_MODEL_PRICES: "embed-model=1000/0",
    QUOTA_DAILY_MESSAGES: "tiny=1",
    API_ROLES: "none,tiny,admin",
  });
  handle = await appHandler();
  // The first role read of a cold emulator can outlast the app's deadline on a loaded machine: read one now.
  const { secret } = await keyFor();
  await client(secret)
    .models.list()
    .catch(() => undefined);
});

afterAll(async () => {
  restoreEnv();
  await Promise.all([model.close(), firebase.close()]);
});

beforeEach(() => model.reset());

function client(apiKey: string) {
  return new OpenAI({
    apiKey,
    baseURL: `${APP_ORIGIN}/v1`,
    maxRetries: 0,
    fetch: (url, init) => handle(new Request(url, init)),
  });
}

async function keyFor(role?: string) {
  const account = await createAccount(firebase, role ? { role } : {});
  const created = (await createApiKey(await getDb(), { uid: account.uid, name: "script", expiresAt: null })) as {
    key: { id: string };
    secret: string;
  };
  return { account, keyId: created.key.id, secret: created.secret };
}

async function keyRow(id: string) {
  const [row] = await (await getDb()).select().from(apiKeys).where(eq(apiKeys.id, id));
  return row;
}

async function usageOf(uid: string) {
  const [row] = await (await getDb()).select().from(usageDaily).where(eq(usageDaily.uid, uid));
  return row;
}

async function refusal(promise: Promise<unknown>) {
  const error = (await promise.catch((thrown: unknown) => thrown)) as InstanceType<typeof OpenAI.APIError>;
  expect(error).toBeInstanceOf(OpenAI.APIError);
  const body = error.error as { type?: string; param?: string | null; code?: string | null } | undefined;
  return { status: error.status, message: error.message, type: body?.type, param: body?.param, code: body?.code };
}

const embeddingsCalls = () => model.requests.filter((request) => request.path === "/v1/embeddings");

describe("POST /v1/embeddings with a personal key", () => {
  it("lists the embeddings model among the key's models", async () => {
    const { secret } = await keyFor();
    const ids = (await client(secret).models.list()).data.map((entry) => entry.id);
    expect(ids).toEqual(["test-model", "embed-model"]);
  });

  it("embeds a list of texts in order, with usage, charged to the account's day and to the key", async () => {
    const { account, keyId, secret } = await keyFor();
    const answer = await client(secret).embeddings.create({
      model: "embed-model",
      input: ["red apples and pears", "a green pear"],
      encoding_format: "float",
    });
    expect(answer.object).toBe("list");
    expect(answer.model).toBe("embed-model");
    expect(answer.data.map((entry) => entry.index)).toEqual([0, 1]);
    expect(answer.data[0].embedding).toEqual(embedText("red apples and pears", 16));
    expect(answer.data[1].embedding).toEqual(embedText("a green pear", 16));
    // The scripted provider counts a word a token: 4 + 3.
    expect(answer.usage).toEqual({ prompt_tokens: 7, total_tokens: 7 });
    expect(embeddingsCalls().at(-1)!.body).toMatchObject({
      model: "embed-model",
      input: ["red apples and pears", "a green pear"],
    });
    // 7 tokens at 1000 USD a million input tokens: 7,000 micro-USD.
    expect(await usageOf(account.uid)).toMatchObject({
      messages: 1,
      inputTokens: 7,
      outputTokens: 0,
      costMicroUsd: 7000,
    });
    expect(await keyRow(keyId)).toMatchObject({ requests: 1, inputTokens: 7, outputTokens: 0, costMicroUsd: 7000 });
  });

  it("answers base64 (the client's default) as the same vector, one string, token ids and dimensions", async () => {
    const { secret } = await keyFor();
    const openai = client(secret);
    // The openai client asks for base64 unless told otherwise and decodes it back to floats.
    const decoded = await openai.embeddings.create({ model: "embed-model", input: "one fine day" });
    expect(embeddingsCalls().at(-1)!.body!.encoding_format).toBe("base64");
    expect(decoded.data[0].embedding.map((value) => Math.round(value * 1e5))).toEqual(
      embedText("one fine day", 16).map((value) => Math.round(value * 1e5)),
    );
    const tokens = await openai.embeddings.create({
      model: "embed-model",
      input: [[1, 2, 3], [4]],
      encoding_format: "float",
    });
    expect(tokens.data).toHaveLength(2);
    expect(tokens.usage.prompt_tokens).toBe(4);
    const narrow = await openai.embeddings.create({
      model: "embed-model",
      input: "short",
      dimensions: 8,
      encoding_format: "float",
    });
    expect(narrow.data[0].embedding).toHaveLength(8);
  });

  it("a `dimensions` the provider does not take is a 400 naming it, and the quota's claim is given back", async () => {
    const { account, secret } = await keyFor();
    model.enqueueEmbeddings({ type: "http-error", status: 400, message: "This model does not support dimensions" });
    const refused = await refusal(
      client(secret).embeddings.create({ model: "embed-model", input: "x", dimensions: 3 }),
    );
    expect(refused).toMatchObject({ status: 400, type: "invalid_request_error", param: "dimensions" });
    expect((await usageOf(account.uid))?.messages ?? 0).toBe(0);
  });

  it("counts against the same daily quota as the chat: over it, 429 insufficient_quota with Retry-After", async () => {
    const { secret } = await keyFor("tiny");
    const openai = client(secret);
    await openai.embeddings.create({ model: "embed-model", input: "first" });
    const error = (await openai.embeddings
      .create({ model: "embed-model", input: "second" })
      .catch((thrown: unknown) => thrown)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.error).toMatchObject({ type: "insufficient_quota", code: "insufficient_quota" });
    expect(Number(error.headers?.get("retry-after"))).toBeGreaterThan(0);
    expect(embeddingsCalls()).toHaveLength(1);
  });
});

describe("embeddings refusals, in OpenAI's error shape", () => {
  it("bad input is a 400 saying what is wrong, an unknown model a 404, a huge body a 413; nothing reaches the provider or is charged", async () => {
    const { account, keyId, secret } = await keyFor();
    const openai = client(secret);
    const ask = (body: Record<string, unknown>) =>
      refusal(openai.embeddings.create({ model: "embed-model", input: "x", ...body } as OpenAI.EmbeddingCreateParams));
    expect(await ask({ input: "" })).toMatchObject({ status: 400, param: "input" });
    expect(await ask({ input: [] })).toMatchObject({ status: 400, param: "input" });
    expect(await ask({ input: [1, "mixed"] })).toMatchObject({ status: 400, param: "input" });
    expect(await ask({ input: Array.from({ length: 2049 }, () => "a") })).toMatchObject({
      status: 400,
      param: "input",
    });
    expect((await ask({ input: "word ".repeat(40_000) })).message).toMatch(/at most 8192 tokens/);
    expect(await ask({ encoding_format: "hex" })).toMatchObject({ status: 400, param: "encoding_format" });
    expect(await ask({ dimensions: 0 })).toMatchObject({ status: 400, param: "dimensions" });
    expect((await ask({ frobnicate: 1 })).message).toMatch(/Unrecognized request argument supplied: frobnicate/);
    expect(await ask({ model: "test-model" })).toMatchObject({ status: 404, code: "model_not_found" });
    const huge = await handle(
      new Request(`${APP_ORIGIN}/v1/embeddings`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body: "x".repeat(API_BODY_MAX_BYTES + 1),
      }),
    );
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    const get = await handle(
      new Request(`${APP_ORIGIN}/v1/embeddings`, { headers: { Authorization: `Bearer ${secret}` } }),
    );
    expect(get.status).toBe(405);
    expect(embeddingsCalls()).toHaveLength(0);
    expect(await usageOf(account.uid)).toBeUndefined();
    expect((await keyRow(keyId)).requests).toBe(10);
  });

  it("no key is a 401, a role without API access a 403", async () => {
    const keyless = await handle(
      new Request(`${APP_ORIGIN}/v1/embeddings`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ model: "embed-model", input: "x" }),
      }),
    );
    expect(keyless.status).toBe(401);
    const { secret } = await keyFor("premium");
    expect(await refusal(client(secret).embeddings.create({ model: "embed-model", input: "x" }))).toMatchObject({
      status: 403,
      type: "permission_error",
    });
  });

  it("without an embeddings model configured: 404 saying so, and the model list has none", async () => {
    const { secret } = await keyFor();
    const restore = setAppEnv({ LLM_EMBEDDING_MODEL: "" });
    try {
      const refused = await refusal(client(secret).embeddings.create({ model: "embed-model", input: "x" }));
      expect(refused).toMatchObject({ status: 404, code: "model_not_found" });
      expect(refused.message).toMatch(/No embeddings model is configured/);
      expect((await client(secret).models.list()).data.map((entry) => entry.id)).toEqual(["test-model"]);
    } finally {
      restore();
    }
  });

  it("the provider's failure is a 502 in our words, and the quota's claim is given back", async () => {
    const { account, secret } = await keyFor();
    model.enqueueEmbeddings({ type: "http-error", status: 500, message: "account 1234 is out of credit" });
    const failed = await refusal(client(secret).embeddings.create({ model: "embed-model", input: "x" }));
    expect(failed.status).toBe(502);
    expect(failed.message).not.toContain("1234");
    expect((await usageOf(account.uid))?.messages ?? 0).toBe(0);
  });
});
