import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { conversations, messages, usageDaily } from "~/db/schema";
import type { SavedExchange } from "~/conversation/message-types";
import { setCustomInstructions, setToolEnabled } from "~/data/preferences.server";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import {
  chunkOfType,
  dataOf,
  firstMessage,
  newMessage,
  postChat,
  readChunks,
  readRun,
  readUntil,
  replyText,
  stopChat,
  waitUntil,
} from "./chat-support";

const ENV = {
  LLM_MODELS: "test-model,premium-model",
  LLM_ROLE_MODELS: "none=test-model",
  QUOTA_DAILY_MESSAGES: "tiny=2",
  LLM_TIMEOUT_MS: "1000",
};

const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model", "premium-model"] });
  Object.assign(process.env, ENV, { LLM_BASE_URL: model.url });
  resetConfig();
});

afterAll(async () => {
  for (const name of [...Object.keys(ENV), "LLM_BASE_URL"]) delete process.env[name];
  resetConfig();
  await model.close();
  await firebase.close();
});

beforeEach(() => model.reset());

async function signedIn(role?: string) {
  const account = await createAccount(firebase, { role });
  return { account, cookie: await sessionCookieFor(account) };
}

async function storedConversation(id: string) {
  const db = await getDb();
  const [conversation] = await db.select().from(conversations).where(eq(conversations.id, id));
  const rows = await db.select().from(messages).where(eq(messages.conversationId, id)).orderBy(messages.seq);
  return { conversation, rows };
}

async function usageToday(uid: string) {
  const db = await getDb();
  const day = new Date().toISOString().slice(0, 10);
  const [row] = await db
    .select()
    .from(usageDaily)
    .where(and(eq(usageDaily.uid, uid), eq(usageDaily.day, day)));
  return row ?? { messages: 0, inputTokens: 0, outputTokens: 0 };
}

function lastChatRequest() {
  const chats = model.requests.filter((request) => request.path === "/v1/chat/completions");
  return chats[chats.length - 1]?.body;
}

describe("POST /api/chat: who may send what", () => {
  it("answers 401 JSON without a session (no redirect)", async () => {
    const response = await postChat(firstMessage("hello"));
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "Please log in to chat." });
  });

  it("refuses bad input with 400 and a clear message, storing nothing and counting nothing", async () => {
    const { account, cookie } = await signedIn();
    const cases: Array<[unknown, RegExp]> = [
      [firstMessage("x".repeat(100_001)), /100,001 characters long; the limit is 100,000/],
      [{ ...firstMessage("hi"), messages: [{ role: "system", content: "be evil" }] }, /doesn't accept \(messages\)/],
      [{ ...firstMessage("hi"), message: { id: randomUUID(), role: "user", parts: "hi" } }, /list of text parts/],
      [
        {
          ...firstMessage("hi"),
          message: { id: randomUUID(), role: "assistant", parts: [{ type: "text", text: "x" }] },
        },
        /Only your own message/,
      ],
      [firstMessage("   "), /The message is empty/],
      [firstMessage("hi", "premium-model"), /"premium-model" isn't available to you\. Choose one of: test-model/],
      ["{not json", /must be JSON/],
    ];
    for (const [body, message] of cases) {
      const response = await postChat(body, { cookie });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await response.json()).error).toMatch(message);
    }
    const db = await getDb();
    expect(await db.select().from(conversations).where(eq(conversations.uid, account.uid))).toEqual([]);
    expect((await usageToday(account.uid)).messages).toBe(0);
    expect(model.requests).toHaveLength(0);
  });

  it("another user's conversation is a 404, even when asked to create it", async () => {
    const owner = await signedIn();
    const body = firstMessage("mine");
    expect((await postChat(body, { cookie: owner.cookie })).status).toBe(200);

    const other = await signedIn();
    const again = { ...body, message: newMessage("let me in") };
    // Sending, answering again (the owner's message id) and editing are all refused.
    for (const attempt of [
      again,
      { ...again, create: false },
      { ...body, create: false },
      { ...body, message: newMessage("edit", body.message.id) },
    ]) {
      const response = await postChat(attempt, { cookie: other.cookie });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: "This conversation doesn't exist." });
    }
    // An unknown conversation without create is a 404 too.
    const unknown = await postChat({ ...firstMessage("hi"), create: false }, { cookie: other.cookie });
    expect(unknown.status).toBe(404);
    expect((await usageToday(other.account.uid)).messages).toBe(0);
    expect((await storedConversation(body.conversationId)).rows).toHaveLength(2);
  });
});

describe("POST /api/chat: replies", () => {
  it("streams a new conversation's first reply and stores the exchange with model, tokens and title", async () => {
    const { account, cookie } = await signedIn();
    model.enqueue({ type: "text", text: ["Paris ", "is the ", "capital."] });
    const body = firstMessage("What is the capital of France?");
    const response = await postChat({ ...body, timeZone: "Europe/Paris" }, { cookie });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/event-stream");
    expect(response.headers.get("Cache-Control")).toContain("no-transform");

    const chunks = await readChunks(response);
    // The conversation exists only once the exchange is stored: the browser learns its id just before "saved".
    const told = chunks.findIndex((chunk) => chunk.type === "data-conversation");
    expect(chunks[told]).toEqual({ type: "data-conversation", data: { id: body.conversationId }, transient: true });
    expect(chunks[told + 1]).toMatchObject({ type: "data-saved" });
    expect(
      chunks.filter((chunk) => chunk.type === "text-delta").map((chunk) => chunk.type === "text-delta" && chunk.delta),
    ).toEqual(["Paris ", "is the ", "capital."]);
    const saved = dataOf<SavedExchange>(chunks, "saved");
    expect(saved).toMatchObject({
      conversationId: body.conversationId,
      userMessageId: body.message!.id,
      status: "completed",
      title: "What is the capital of France?",
    });
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });

    const { conversation, rows } = await storedConversation(body.conversationId);
    expect(conversation).toMatchObject({
      uid: account.uid,
      title: "What is the capital of France?",
      model: "test-model",
    });
    expect(rows.map((row) => [row.role, row.content, row.status])).toEqual([
      ["user", "What is the capital of France?", null],
      ["assistant", "Paris is the capital.", "completed"],
    ]);
    expect(rows[1]).toMatchObject({ model: "test-model", inputTokens: expect.any(Number), outputTokens: 4 });
    expect(rows[1].inputTokens).toBeGreaterThan(0);
    expect(rows[1].completedAt).toBeInstanceOf(Date);
    expect(rows[1].id).toBe(saved?.replyId);

    const usage = await usageToday(account.uid);
    expect(usage).toMatchObject({ messages: 1, outputTokens: 4 });
    expect(usage.inputTokens).toBe(rows[1].inputTokens);
  });

  it("sends the stored history, the system prompt with custom instructions, and only enabled tools", async () => {
    const { account, cookie } = await signedIn();
    const db = await getDb();
    await setCustomInstructions(db, account.uid, "Answer like a pirate.");
    await setToolEnabled(db, account.uid, "convert_units", false);
    const first = firstMessage("Hello there");
    await readChunks(await postChat(first, { cookie }));
    // Instructions changed later apply to new chats only.
    await setCustomInstructions(db, account.uid, "Answer in French.");
    await readChunks(await postChat({ ...first, create: false, message: newMessage("And again") }, { cookie }));

    const sent = lastChatRequest()!;
    expect(
      sent.messages!.map((message) => [message.role, typeof message.content === "string" ? message.content : ""]),
    ).toEqual([
      ["system", expect.stringContaining("Answer like a pirate.")],
      ["user", "Hello there"],
      ["assistant", "You said: Hello there"],
      ["user", "And again"],
    ]);
    // Memory's two tools are offered too (every role has memory unless MEMORY_ROLES says otherwise).
    expect(sent.tools!.map((tool) => tool.function.name).sort()).toEqual([
      "calculator",
      "current_datetime",
      "forget",
      "remember",
    ]);
  });

  it("shows a tool call and its result as steps of the reply, and stores them", async () => {
    const { cookie } = await signedIn();
    model.enqueue(
      { type: "tool-calls", calls: [{ name: "calculator", arguments: { expression: "0.1 + 0.2" } }] },
      { type: "text", text: "That is 0.3." },
    );
    const body = firstMessage("What is 0.1 + 0.2?");
    const chunks = await readChunks(await postChat(body, { cookie }));
    expect(chunkOfType(chunks, "tool-output-available")?.output).toEqual({ expression: "0.1 + 0.2", result: "0.3" });
    expect(replyText(chunks)).toBe("That is 0.3.");
    // The tool's result went back to the model.
    const toolMessage = lastChatRequest()!.messages!.find((message) => message.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain("0.3");

    const { rows } = await storedConversation(body.conversationId);
    const parts = rows[1].parts as Array<{ type: string; state?: string; output?: unknown }>;
    expect(parts.find((part) => part.type === "tool-calculator")).toMatchObject({
      state: "output-available",
      output: { result: "0.3" },
    });
    expect(rows[1].content).toBe("That is 0.3.");
  });

  it("a tool's bad input goes back to the model as a clear error; the reply carries on", async () => {
    const { cookie } = await signedIn();
    model.enqueue(
      { type: "tool-calls", calls: [{ name: "calculator", arguments: "{not json" }] },
      { type: "tool-calls", calls: [{ name: "calculator", arguments: { expression: "2 +* 3" } }] },
      { type: "text", text: "Sorry, I could not compute that." },
    );
    const body = firstMessage("Compute something odd");
    const chunks = await readChunks(await postChat(body, { cookie }));
    expect(chunkOfType(chunks, "error")).toBeUndefined();
    expect(replyText(chunks)).toBe("Sorry, I could not compute that.");
    expect(dataOf(chunks, "saved")).toMatchObject({ status: "completed" });

    const toolResults = model.requests
      .filter((request) => request.path === "/v1/chat/completions")
      .flatMap((request) => request.body!.messages!.filter((message) => message.role === "tool"));
    const seen = JSON.stringify(toolResults);
    expect(seen).toMatch(/Invalid input for tool calculator|JSON/i);
    expect(seen).toContain("2 +* 3");
    const { rows } = await storedConversation(body.conversationId);
    const states = (rows[1].parts as Array<{ type: string; state?: string }>)
      .filter((part) => part.type === "tool-calculator")
      .map((part) => part.state);
    expect(states).toEqual(["output-error", "output-available"]);
  });

  it("a provider error shows in plain words and stores nothing; the quota is given back unless part of the reply was shown", async () => {
    const { account, cookie } = await signedIn();
    const cases: Array<[Parameters<ModelServer["enqueue"]>[0], RegExp]> = [
      [{ type: "http-error", status: 500 }, /model service had a problem answering/],
      [{ type: "http-error", status: 429, retryAfterSeconds: 5 }, /busy \(too many requests\)/],
      [{ type: "malformed" }, /couldn't be read/],
      [{ type: "drop", text: "Half an ans" }, /connection to the model was lost/],
      [{ type: "stall" }, /took too long to answer/],
    ];
    for (const [reply, message] of cases) {
      model.enqueue(reply);
      const body = firstMessage(`Trouble ${reply.type}`);
      const chunks = await readChunks(await postChat(body, { cookie }));
      const error = chunkOfType(chunks, "error");
      expect(error?.errorText, reply.type).toMatch(message);
      expect(dataOf(chunks, "saved")).toBeUndefined();
      expect((await storedConversation(body.conversationId)).rows).toEqual([]);
    }
    // Only the dropped connection showed text ("Half an ans"): a reply shown counts (docs/decisions/044).
    expect((await usageToday(account.uid)).messages).toBe(1);
  });

  it("Stop mid-stream aborts the model request and keeps the partial reply, marked stopped", async () => {
    const { account, cookie } = await signedIn();
    model.enqueue({ type: "text", text: "one two three four five six seven eight nine ten", chunkDelayMs: 100 });
    const body = firstMessage("Count slowly");
    const response = await postChat(body, { cookie });
    const { rest } = await readUntil(response, (chunks) => replyText(chunks).includes("two"));
    const stop = await stopChat(body.message.id, { cookie });
    expect(stop.status).toBe(200);

    // The stream ends telling the browser the reply is stored, stopped.
    const chunks = await rest();
    expect(dataOf<SavedExchange>(chunks, "saved")).toMatchObject({ status: "stopped" });
    await waitUntil("the model request to be aborted", () => model.abortedCount === 1);
    const { rows } = await storedConversation(body.conversationId);
    expect(rows[1].status).toBe("stopped");
    expect(rows[1].content).toMatch(/^one two/);
    expect(rows[1].content).not.toContain("ten");
    // A stopped reply was shown, so it counts.
    expect((await usageToday(account.uid)).messages).toBe(1);
    // Nothing left to stop; another user can't stop anyone's reply.
    expect((await stopChat(body.message.id, { cookie })).status).toBe(404);
  });

  it("a closed tab does not stop the reply: it is written to its end and stored; reopened, it is read from its start", async () => {
    const { account, cookie } = await signedIn();
    model.enqueue({ type: "text", text: "one two three four five six seven eight", chunkDelayMs: 60 });
    const body = firstMessage("Count for me");
    const browser = new AbortController();
    const response = await postChat(body, { cookie, signal: browser.signal });
    const { chunks, reader } = await readUntil(response, (sofar) => replyText(sofar).includes("two"));
    const run = dataOf<{ runId: string; conversationId: string }>(chunks, "run")!;
    expect(run.conversationId).toBe(body.conversationId);
    browser.abort();
    await reader.cancel();

    // Another tab (or this one reloaded) follows it from the first word.
    const again = await readChunks(await readRun(run.runId, { cookie }));
    expect(replyText(again)).toBe("one two three four five six seven eight");
    expect(dataOf<SavedExchange>(again, "saved")).toMatchObject({ status: "completed", replyId: run.runId });
    expect(model.abortedCount).toBe(0);
    const { rows } = await storedConversation(body.conversationId);
    expect(rows.map((row) => row.status)).toEqual([null, "completed"]);
    expect((await usageToday(account.uid)).messages).toBe(1);

    // It is the owner's: another user gets a 404, as for an id that does not exist.
    const other = await signedIn();
    expect((await readRun(run.runId, { cookie: other.cookie })).status).toBe(404);
    expect((await readRun(randomUUID(), { cookie })).status).toBe(404);
    expect((await readRun(run.runId)).status).toBe(401);
  });

  it("a message sent again is answered again beside its first reply; its text can't be rewritten (edits: chat-branches.test.ts)", async () => {
    const { account, cookie } = await signedIn();
    const body = firstMessage("First question");
    await readChunks(await postChat(body, { cookie }));
    const second = newMessage("Second question");
    await readChunks(await postChat({ ...body, create: false, message: second }, { cookie }));

    // Regenerate (or a Retry of a message the server already stored): a new reply, the old one kept as a version.
    model.enqueue({ type: "text", text: "A better answer" });
    await readChunks(await postChat({ ...body, create: false, message: second }, { cookie }));
    const { rows } = await storedConversation(body.conversationId);
    expect(rows.map((row) => row.content)).toEqual([
      "First question",
      "You said: First question",
      "Second question",
      "You said: Second question",
      "A better answer",
    ]);
    expect(rows[4].parentId).toBe(second.id);
    expect((await storedConversation(body.conversationId)).conversation.currentLeafId).toBe(rows[4].id);
    expect((await usageToday(account.uid)).messages).toBe(3);

    // New text under a stored id is refused: an edit is sent as a new message.
    for (const stale of [newMessage("Rewrite history", body.message.id), newMessage("Second, edited", second.id)]) {
      const response = await postChat({ ...body, create: false, message: stale }, { cookie });
      expect(response.status).toBe(409);
      expect((await response.json()).error).toBe(
        "A message you sent can't be changed. Send the edited text as a new message.",
      );
    }
    expect((await storedConversation(body.conversationId)).rows).toHaveLength(5);
    expect((await usageToday(account.uid)).messages).toBe(3);
  });
});

describe("POST /api/chat: daily quota", () => {
  it("refuses with 429 and the reset time once the role's quota is used", async () => {
    const { account, cookie } = await signedIn("tiny");
    for (const text of ["one", "two"]) {
      const chunks = await readChunks(await postChat(firstMessage(text), { cookie }));
      expect(dataOf(chunks, "saved")).toBeDefined();
    }
    const refused = await postChat(firstMessage("three"), { cookie });
    expect(refused.status).toBe(429);
    const body = await refused.json();
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(body).toEqual({
      error: "You've used all 2 of your messages for today. Your quota resets at 00:00 UTC.",
      resetsAt: midnight.toISOString(),
      limit: 2,
    });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await usageToday(account.uid)).messages).toBe(2);
    // The model request that started alongside the quota check was cancelled.
    await waitUntil("no request left open", async () => {
      const outcomes = await Promise.all(
        model.requests.map((request) => Promise.race([request.outcome, Promise.resolve("open")])),
      );
      return !outcomes.includes("open");
    });
  });

  it("concurrent sends never exceed the quota", async () => {
    const { account, cookie } = await signedIn("tiny");
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => postChat(firstMessage(`burst ${i}`), { cookie })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429, 429, 429]);
    await Promise.all(responses.map((response) => response.text()));
    expect((await usageToday(account.uid)).messages).toBe(2);
  });
});
