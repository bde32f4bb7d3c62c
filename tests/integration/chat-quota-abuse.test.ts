import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { authCache } from "~/auth/auth-cache.server";
import { deleteConversation } from "~/data/conversations.server";
import { getDb } from "~/db/client.server";
import { messages } from "~/db/schema";
import { holdAppClockInEachTest } from "../support/clock";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import {
  dataOf,
  firstMessage,
  messagesToday,
  newMessage,
  postChat,
  readChunks,
  readUntil,
  replyText,
  stopChat,
  waitUntil,
} from "./chat-support";

/**
 * Quota bypasses and refused sends that still called the model (ADR 044),
 * through the real endpoint with this instance's caches on
 * (the path where the model request may start early, docs/decisions/033):
 * what the user sees, what is stored and counted, and how many requests the
 * model server received.
 */
const ENV = {
  AUTH_CACHE_TTL_SECONDS: "30",
  LLM_MODELS: "test-model",
  QUOTA_DAILY_MESSAGES: "none=50;tiny=3",
  CHAT_RATE_LIMIT_PER_MINUTE: "14",
};
let restoreEnv: () => void;

const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer();
  restoreEnv = setAppEnv({ ...ENV, LLM_BASE_URL: model.url });
});

afterAll(async () => {
  restoreEnv();
  await model.close();
  await firebase.close();
});

beforeEach(() => {
  model.reset();
});
// The rate limit counts in fixed minutes: with the app's clock held still, none ends mid-test.
holdAppClockInEachTest();

async function signedIn(role = "") {
  const account = await createAccount(firebase, { role });
  return { account, cookie: await sessionCookieFor(account) };
}

/** Chat completion requests the model server received (not the model list). */
function modelCalls() {
  return model.requests.filter((request) => request.path === "/v1/chat/completions").length;
}

/**
 * A send by someone else, made once the refusals are answered, and read to
 * its end. It goes through the same steps to the model as a refused send
 * that (wrongly) started a model request, and later: that request has
 * reached the model server by the time this one is answered. One more model request.
 */
async function oneLaterSend() {
  const { cookie } = await signedIn();
  expect((await sendAndRead(firstMessage("a later send"), cookie)).saved).toBeDefined();
}

async function storedMessages(conversationId: string) {
  const db = await getDb();
  return db.select().from(messages).where(eq(messages.conversationId, conversationId));
}

async function sendAndRead(body: Parameters<typeof postChat>[0], cookie: string) {
  const response = await postChat(body, { cookie });
  if (response.status !== 200)
    return { status: response.status, error: ((await response.json()) as { error: string }).error };
  const chunks = await readChunks(response);
  return { status: 200, saved: dataOf(chunks, "saved"), text: replyText(chunks) };
}

describe("a save can't be made to fail on purpose for a free reply", () => {
  it("a message id already stored (the user's own, or another user's) is refused 409 before the model; nothing counted", async () => {
    const owner = await signedIn();
    const first = firstMessage("The original message");
    expect((await sendAndRead(first, owner.cookie)).saved).toBeDefined();
    expect(modelCalls()).toBe(1);

    // The same id as the first message of a new conversation: by its owner, then by someone else.
    const other = await signedIn();
    for (const { cookie } of [owner, other, owner]) {
      const reuse = {
        ...firstMessage("Answer me for free"),
        message: newMessage("Answer me for free", first.message.id),
      };
      const refused = await sendAndRead(reuse, cookie);
      expect(refused).toEqual({
        status: 409,
        error: "This message id is already used by another message. Send your message as a new one (with a new id).",
      });
      expect(await storedMessages(reuse.conversationId)).toEqual([]);
    }
    expect(modelCalls()).toBe(1);
    expect(await messagesToday(owner.account.uid)).toBe(1);
    expect(await messagesToday(other.account.uid)).toBe(0);
  });

  it.each([
    ["a NUL byte", "hello\u0000world"],
    ["a lone surrogate", "hi \ud800 there"],
  ])("text with %s is refused 400 with a clear message before the model; nothing counted", async (_name, text) => {
    const { account, cookie } = await signedIn();
    const body = firstMessage(text);
    expect(await sendAndRead(body, cookie)).toEqual({
      status: 400,
      error:
        "The text contains characters that cannot be stored (a NUL byte or a broken Unicode character). Remove them and try again.",
    });
    expect(modelCalls()).toBe(0);
    expect(await messagesToday(account.uid)).toBe(0);
  });

  it("10 concurrent sends of one message id: exactly one reply, one model request, one unit", async () => {
    const { account, cookie } = await signedIn();
    // Warm this instance's caches, so the early start is in play too.
    expect((await sendAndRead(firstMessage("warm up"), cookie)).saved).toBeDefined();
    model.reset();
    // Slow enough that every copy arrives while the first is still being answered.
    model.enqueue({ type: "text", text: "one two three four five", chunkDelayMs: 60 });
    const body = firstMessage("Only once, please");
    const results = await Promise.all(Array.from({ length: 10 }, () => sendAndRead(body, cookie)));

    const answered = results.filter((result) => result.status === 200);
    expect(answered).toHaveLength(1);
    expect(answered[0].saved).toMatchObject({ userMessageId: body.message.id });
    expect(results.filter((result) => result.status === 409)).toEqual(
      Array.from({ length: 9 }, () => ({ status: 409, error: "This message is already being answered." })),
    );
    expect(modelCalls()).toBe(1);
    expect(await messagesToday(account.uid)).toBe(2);
    expect((await storedMessages(body.conversationId)).map((row) => row.role).sort()).toEqual(["assistant", "user"]);
  });

  it("a reply shown and then not stored (its conversation deleted meanwhile) still counts", async () => {
    const { account, cookie } = await signedIn();
    // A new chat's conversation exists once its first exchange is stored: delete it during the second.
    const first = firstMessage("Hello");
    expect((await sendAndRead(first, cookie)).saved).toBeDefined();
    model.enqueue({ type: "text", text: "you can read all of this", chunkDelayMs: 60 });
    const body = { ...first, create: false, message: newMessage("Delete my conversation while you answer") };
    const response = await postChat(body, { cookie });
    expect(response.status).toBe(200);
    const { rest } = await readUntil(response, (sofar) => replyText(sofar).includes("read"));
    await deleteConversation(await getDb(), account.uid, body.conversationId);
    const chunks = await rest();

    expect(replyText(chunks)).toContain("this");
    expect(chunks.find((chunk) => chunk.type === "error")).toMatchObject({
      errorText: "This conversation was deleted, so the reply was not saved.",
    });
    expect(dataOf(chunks, "saved")).toBeUndefined();
    expect(await messagesToday(account.uid)).toBe(2);
    // The same message again (in a new chat) is a new send, counted again (it was not left reserved for a free Retry).
    const again = await sendAndRead({ ...body, conversationId: randomUUID(), create: true }, cookie);
    expect(again.saved).toBeDefined();
    expect(await messagesToday(account.uid)).toBe(3);
  });

  it("a reply stopped before any of it was shown is free: the message is kept, the count unchanged (ADR 044)", async () => {
    const { account, cookie } = await signedIn();
    model.enqueue({ type: "stall" });
    const body = firstMessage("Never mind");
    const response = await postChat(body, { cookie });
    expect(response.status).toBe(200);
    await waitUntil("the model to be asked", () => modelCalls() === 1);
    expect(await messagesToday(account.uid)).toBe(1);
    expect((await stopChat(body.message.id, { cookie })).status).toBe(200);
    await response.body?.cancel().catch(() => undefined);

    await waitUntil(
      "the stopped exchange to be stored",
      async () => (await storedMessages(body.conversationId)).length === 2,
    );
    const stored = await storedMessages(body.conversationId);
    expect(stored.find((row) => row.role === "assistant")).toMatchObject({ status: "stopped", content: "" });
    expect(await messagesToday(account.uid)).toBe(0);

    // A stop after text was shown still counts.
    model.enqueue({ type: "text", text: "one two three four five six", chunkDelayMs: 80 });
    const next = { ...body, create: false, message: newMessage("Count slowly") };
    const { reader } = await readUntil(await postChat(next, { cookie }), (sofar) => replyText(sofar).includes("two"));
    expect((await stopChat(next.message.id, { cookie })).status).toBe(200);
    await reader.cancel().catch(() => undefined);
    await waitUntil(
      "the second stopped exchange to be stored",
      async () => (await storedMessages(body.conversationId)).length === 4,
    );
    expect(await messagesToday(account.uid)).toBe(1);
  });
});

describe("a refused send never reaches the model", () => {
  async function exhaust(cookie: string, n: number) {
    for (let i = 0; i < n; i += 1)
      expect((await sendAndRead(firstMessage(`allowed ${i}`), cookie)).saved).toBeDefined();
  }

  it("past the daily quota: the model's request count equals the accepted sends exactly (cached and uncached, one by one and concurrent)", async () => {
    const { account, cookie } = await signedIn("tiny");
    await exhaust(cookie, 3);
    expect(modelCalls()).toBe(3);

    // One by one: the first with this instance's caches cold, then warm.
    authCache.reset();
    for (let i = 0; i < 4; i += 1) {
      const refused = await sendAndRead(firstMessage(`over quota ${i}`), cookie);
      expect(refused.status).toBe(429);
      expect(refused.error).toMatch(/^You've used all 3 of your messages for today\./);
    }
    // At once.
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) => sendAndRead(firstMessage(`burst ${i}`), cookie)),
    );
    expect(burst.map((result) => result.status)).toEqual(Array(6).fill(429));

    await oneLaterSend();
    expect(modelCalls()).toBe(3 + 1);
    expect(await messagesToday(account.uid)).toBe(3);
  });

  it("over the per-minute rate limit: the model's request count equals the accepted sends exactly", async () => {
    const { account, cookie } = await signedIn();
    await exhaust(cookie, 14);
    const refused = await Promise.all(
      Array.from({ length: 5 }, (_, i) => sendAndRead(firstMessage(`too fast ${i}`), cookie)),
    );
    expect(refused.map((result) => result.status)).toEqual(Array(5).fill(429));
    await oneLaterSend();
    expect(modelCalls()).toBe(14 + 1);
    expect(await messagesToday(account.uid)).toBe(14);
    await waitUntil("no model request left open", async () => {
      const outcomes = await Promise.all(
        model.requests.map((request) => Promise.race([request.outcome, Promise.resolve("open")])),
      );
      return !outcomes.includes("open");
    });
  });
});
