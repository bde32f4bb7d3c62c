import OpenAI from "openai";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { apiKeys, usageDaily } from "~/db/schema";
import { createApiKey, revokeApiKey } from "~/data/api-keys.server";
import { API_BODY_MAX_BYTES } from "~/api/chat-completions.server";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { appHandler } from "../support/remix-app";

/**
 * The OpenAI-compatible API (docs/decisions/099) driven by the official
 * `openai` client, against the app in-process and the scripted model server
 * over HTTP: models, a reply with and without streaming, tool calls passed
 * through, usage charged to the account and the key, the same quota as the
 * chat, and OpenAI's errors with the right status for every refusal.
 */

const firebase = admin();
let model: ModelServer;
let handle: (request: Request) => Promise<Response>;
let restoreEnv: () => void;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model", "test-model-b"] });
  restoreEnv = setAppEnv({
    LLM_BASE_URL: model.url,
    LLM_MODELS: "test-model,test-model-b",
    LLM_MODEL_NAMES: "test-model-b=Test Model B",
    LLM_ROLE_MODELS: "limited=test-model",
    QUOTA_DAILY_MESSAGES: "tiny=1",
    API_ROLES: "none,limited,tiny,admin,switched",
  });
  handle = await appHandler();
});

afterAll(async () => {
  restoreEnv();
  await Promise.all([model.close(), firebase.close()]);
});

beforeEach(() => model.reset());

/** An OpenAI client for the app, as a user's script would make it: only the base URL and the key differ. */
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
  const { key, secret } = (await createApiKey(await getDb(), {
    uid: account.uid,
    name: "script",
    expiresAt: null,
  })) as {
    key: { id: string };
    secret: string;
  };
  return { account, keyId: key.id, secret };
}

async function keyRow(id: string) {
  const [row] = await (await getDb()).select().from(apiKeys).where(eq(apiKeys.id, id));
  return row;
}

async function usageOf(uid: string) {
  const [row] = await (await getDb()).select().from(usageDaily).where(eq(usageDaily.uid, uid));
  return row;
}

describe("the OpenAI-compatible API with a personal key", () => {
  it("lists the models the key's role may use, with their readable names", async () => {
    const { secret } = await keyFor();
    const list = await client(secret).models.list();
    expect(list.data.map((entry) => [entry.id, (entry as unknown as { name: string }).name])).toEqual([
      ["test-model", "test-model"],
      ["test-model-b", "Test Model B"],
    ]);
    const limited = await keyFor("limited");
    expect((await client(limited.secret).models.list()).data.map((entry) => entry.id)).toEqual(["test-model"]);
  });

  it("answers a chat completion, with usage, charged to the account's day and to the key", async () => {
    const { account, keyId, secret } = await keyFor();
    model.enqueue({
      type: "text",
      text: "Hello from the gateway.",
      usage: { prompt_tokens: 12, completion_tokens: 5 },
    });
    const completion = await client(secret).chat.completions.create({
      model: "test-model",
      messages: [{ role: "user", content: "Say hello" }],
    });
    expect(completion.choices[0].message.content).toBe("Hello from the gateway.");
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
    // What the provider was sent: the caller's messages, the app's own cap on the reply's length.
    const sent = model.requests.at(-1)!.body!;
    expect(sent.model).toBe("test-model");
    expect(sent.messages).toEqual([{ role: "user", content: "Say hello" }]);
    expect(sent.max_tokens).toBeGreaterThan(0);
    expect(await usageOf(account.uid)).toMatchObject({ messages: 1, inputTokens: 12, outputTokens: 5 });
    expect(await keyRow(keyId)).toMatchObject({ requests: 1, inputTokens: 12, outputTokens: 5 });
    expect((await keyRow(keyId)).lastUsedAt).not.toBeNull();
  });

  it("streams a reply chunk by chunk and ends with the usage", async () => {
    const { account, secret } = await keyFor();
    model.enqueue({ type: "text", text: "One two three four", usage: { prompt_tokens: 7, completion_tokens: 4 } });
    const stream = await client(secret).chat.completions.create({
      model: "test-model-b",
      messages: [{ role: "user", content: "Count" }],
      stream: true,
    });
    const pieces: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      pieces.push(chunk.choices[0]?.delta?.content ?? "");
      if (chunk.usage) usage = chunk.usage;
    }
    expect(pieces.join("")).toBe("One two three four");
    expect(pieces.filter(Boolean).length).toBeGreaterThan(1);
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 4 });
    expect(await usageOf(account.uid)).toMatchObject({ messages: 1, inputTokens: 7, outputTokens: 4 });
  });

  it("a stream the caller abandons stops the model's, and what was used is charged", async () => {
    const { account, keyId, secret } = await keyFor();
    const words = Array.from({ length: 60 }, (_, at) => `word${at}`).join(" ");
    model.enqueue({ type: "text", text: words, chunkDelayMs: 100 });
    const stream = await client(secret).chat.completions.create({
      model: "test-model",
      messages: [{ role: "user", content: "Talk for a while" }],
      stream: true,
    });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta?.content) break; // leaving the loop aborts the stream
    }
    const call = model.requests.at(-1)!;
    expect(await call.outcome).toBe("aborted");
    await expect.poll(async () => (await keyRow(keyId)).requests).toBe(1);
    const usage = await usageOf(account.uid);
    expect(usage).toMatchObject({ messages: 1 });
    expect(usage!.inputTokens).toBeGreaterThan(0);
  });

  it("passes tools through and hands the model's tool calls back to the caller", async () => {
    const { secret } = await keyFor();
    model.enqueue({ type: "tool-calls", calls: [{ id: "call_7", name: "get_weather", arguments: { city: "Oslo" } }] });
    const completion = await client(secret).chat.completions.create({
      model: "test-model",
      messages: [{ role: "user", content: "Weather in Oslo?" }],
      tools: [
        {
          type: "function",
          function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
        },
      ],
    });
    expect(completion.choices[0].finish_reason).toBe("tool_calls");
    const call = completion.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call).toMatchObject({ id: "call_7", function: { name: "get_weather" } });
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "Oslo" });
    expect(model.requests.at(-1)!.body!.tools?.[0].function.name).toBe("get_weather");
  });

  it("a key counts against the same daily quota as the chat: over it, 429 with Retry-After", async () => {
    const { secret } = await keyFor("tiny");
    model.enqueue({ type: "text", text: "First." });
    const openai = client(secret);
    await openai.chat.completions.create({ model: "test-model", messages: [{ role: "user", content: "1" }] });
    const refused = await openai.chat.completions
      .create({ model: "test-model", messages: [{ role: "user", content: "2" }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).error).toMatchObject({ type: "insufficient_quota" });
    expect(Number((refused as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after"))).toBeGreaterThan(0);
    expect(model.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(1);
  });
});

describe("refusals, in OpenAI's error shape", () => {
  const ask = (secret: string, body: Record<string, unknown>) =>
    client(secret).chat.completions.create({
      model: "test-model",
      messages: [{ role: "user", content: "Hi" }],
      ...body,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);

  async function statusOf(promise: Promise<unknown>) {
    const error = (await promise.catch((thrown: unknown) => thrown)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return { status: error.status, message: error.message, type: (error.error as { type?: string } | undefined)?.type };
  }

  it("a missing, malformed, unknown, revoked or expired key, or one of a disabled account: 401 and nothing more", async () => {
    const { account, keyId, secret } = await keyFor();
    const keyless = await handle(new Request(`${APP_ORIGIN}/v1/models`));
    expect(keyless.status).toBe(401);
    expect(await keyless.json()).toMatchObject({ error: { type: "authentication_error" } });
    expect((await statusOf(client("sk-not-ours").models.list())).status).toBe(401);
    expect((await statusOf(client(`nvk_${"A".repeat(43)}`).models.list())).status).toBe(401);

    const db = await getDb();
    const expired = (await createApiKey(db, {
      uid: account.uid,
      name: "old",
      expiresAt: new Date(Date.now() - 1000),
    })) as { secret: string };
    expect((await statusOf(client(expired.secret).models.list())).status).toBe(401);

    await firebase.auth.updateUser(account.uid, { disabled: true });
    expect((await statusOf(client(secret).models.list())).status).toBe(401);
    await firebase.auth.updateUser(account.uid, { disabled: false });
    expect((await client(secret).models.list()).data.length).toBeGreaterThan(0);

    expect(await revokeApiKey(db, { uid: account.uid, id: keyId })).toBe(true);
    const revoked = await statusOf(client(secret).models.list());
    expect(revoked).toMatchObject({ status: 401, type: "authentication_error" });
  });

  it("a key in the address is refused, even a good one", async () => {
    const { secret } = await keyFor();
    const response = await handle(new Request(`${APP_ORIGIN}/v1/models?api_key=${secret}`));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /not accepted in the address/,
    );
  });

  it("bad input: 400 with what is wrong, and nothing counted", async () => {
    const { account, keyId, secret } = await keyFor();
    expect(await statusOf(ask(secret, { temperature: "hot" as unknown as number, n: 2 }))).toMatchObject({
      status: 400,
    });
    expect((await statusOf(ask(secret, { n: 2 }))).message).toMatch(/`n` must be 1/);
    expect((await statusOf(ask(secret, { max_tokens: 10_000_000 }))).message).toMatch(/`max_tokens` must be between 1/);
    expect((await statusOf(ask(secret, { frobnicate: true }))).message).toMatch(
      /Unrecognized request argument supplied: frobnicate/,
    );
    expect((await statusOf(ask(secret, { messages: [] }))).status).toBe(400);
    expect((await statusOf(ask(secret, { model: "no-such-model" }))).status).toBe(404);
    const limited = await keyFor("limited");
    expect((await statusOf(ask(limited.secret, { model: "test-model-b" }))).status).toBe(403);
    const notJson = await handle(
      new Request(`${APP_ORIGIN}/v1/chat/completions`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body: "{not json",
      }),
    );
    expect(notJson.status).toBe(400);
    const huge = await handle(
      new Request(`${APP_ORIGIN}/v1/chat/completions`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body: "x".repeat(API_BODY_MAX_BYTES + 1),
      }),
    );
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    expect(model.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(0);
    expect(await usageOf(account.uid)).toBeUndefined();
    // Each refused call still shows on the key.
    expect((await keyRow(keyId)).requests).toBe(8);
  });

  it("a role without API access gets 403", async () => {
    const { secret } = await keyFor("premium");
    expect(await statusOf(client(secret).models.list())).toMatchObject({ status: 403, type: "permission_error" });
  });

  it("the key acts with its owner's role as it is now: a new role, or a new address with another role, applies at the next call", async () => {
    const { account, secret } = await keyFor("limited");
    const models = async () => (await client(secret).models.list()).data.map((entry) => entry.id);
    expect(await models()).toEqual(["test-model"]);

    await firebase.firestore.collection("users").doc(account.email).set({ stripeRole: "premium" });
    expect(await statusOf(client(secret).models.list())).toMatchObject({ status: 403, type: "permission_error" });

    await firebase.firestore.collection("users").doc(account.email).set({ stripeRole: "limited" });
    expect(await models()).toEqual(["test-model"]);

    // The account's address changes to one whose record gives no role (every model, API access as "none").
    await firebase.auth.updateUser(account.uid, { email: `moved-${account.email}` });
    expect(await models()).toEqual(["test-model", "test-model-b"]);
  });

  it("the model provider's failure is the caller's 502, and the quota's claim is given back", async () => {
    const { account, secret } = await keyFor();
    model.enqueue({ type: "http-error", status: 500, message: "provider account 1234 is out of credit" });
    const failed = await statusOf(ask(secret, {}));
    expect(failed.status).toBe(502);
    expect(failed.message).not.toContain("1234");
    expect((await usageOf(account.uid))?.messages ?? 0).toBe(0);
  });
});

describe("the admins' API switch per role (docs/decisions/100)", () => {
  async function switchApi(cookie: string, roleKey: string, enabled: "on" | "off") {
    const response = await handle(
      appRequest("/admin/api?_data=routes/admin.api", {
        method: "POST",
        cookie,
        headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ roleKey, enabled }).toString(),
      }),
    );
    return { status: response.status, body: (await response.json()) as { notice?: string; error?: string } };
  }

  async function dashboardSays(cookie: string) {
    const response = await handle(appRequest("/dashboard?_data=routes/dashboard", { cookie }));
    return ((await response.json()) as { apiKeys: { apiAccess: boolean | null } }).apiKeys.apiAccess;
  }

  it("off for a role: its keys get 403 at their next call and the dashboard says so; on again: they work", async () => {
    const adminCookie = await sessionCookieFor(await createAccount(firebase, { role: "admin", prefix: "admin" }));
    const { account, secret } = await keyFor("switched");
    const userCookie = await sessionCookieFor(account);
    expect((await client(secret).models.list()).data.length).toBeGreaterThan(0);
    expect(await dashboardSays(userCookie)).toBe(true);

    const off = await switchApi(adminCookie, "switched", "off");
    expect(off).toMatchObject({
      status: 200,
      body: { notice: expect.stringMatching(/API access is off for switched/) },
    });
    const refused = (await client(secret)
      .models.list()
      .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused.error).toMatchObject({ type: "permission_error", code: "api_access_off" });
    expect(await dashboardSays(userCookie)).toBe(false);

    expect((await switchApi(adminCookie, "switched", "on")).status).toBe(200);
    expect((await client(secret).models.list()).data.length).toBeGreaterThan(0);
    expect(await dashboardSays(userCookie)).toBe(true);
  });

  it("on for a role API_ROLES leaves out: its keys work; a role that is not a word is refused", async () => {
    const adminCookie = await sessionCookieFor(await createAccount(firebase, { role: "admin", prefix: "admin" }));
    const { secret } = await keyFor("premium");
    expect(
      (await client(secret)
        .models.list()
        .catch((error: unknown) => error)) as Error,
    ).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((await switchApi(adminCookie, "premium", "on")).status).toBe(200);
    expect((await client(secret).models.list()).data.length).toBeGreaterThan(0);
    expect(await switchApi(adminCookie, "Not A Role!", "on")).toMatchObject({
      status: 400,
      body: { error: expect.any(String) },
    });
    // Back as API_ROLES has it, for the other tests.
    expect((await switchApi(adminCookie, "premium", "off")).status).toBe(200);
  });

  it("a user who is not an admin cannot switch it", async () => {
    const { account } = await keyFor();
    const { status } = await switchApi(await sessionCookieFor(account), "none", "off");
    expect(status).toBe(403);
  });
});
