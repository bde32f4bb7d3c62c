import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import type { SavedExchange } from "~/conversation/message-types";
import { findReportedExchange } from "~/data/inbox.server";
import { getDb } from "~/db/client.server";
import { conversations, messages, usageDaily } from "~/db/schema";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { startModelServer, type ModelServer } from "../support/model-server";
import { appHandler } from "../support/remix-app";
import { dataOf, firstMessage, newMessage, postChat, readChunks, type ChatBody } from "./chat-support";

/**
 * Branches (docs/decisions/069): an edit of any message and a regenerated
 * reply are kept beside the earlier versions; the model gets only the branch
 * answered; the branch shown is kept for a reload, the export and a share.
 */

const ENV = { LLM_MODELS: "test-model", LLM_ROLE_MODELS: "none=test-model", QUOTA_DAILY_MESSAGES: "none=50" };
const firebase = admin();
let model: ModelServer;
let handle: (request: Request) => Promise<Response>;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  Object.assign(process.env, ENV, { LLM_BASE_URL: model.url });
  resetConfig();
  handle = await appHandler();
});

afterAll(async () => {
  for (const name of [...Object.keys(ENV), "LLM_BASE_URL"]) delete process.env[name];
  resetConfig();
  await model.close();
  await firebase.close();
});

beforeEach(() => model.reset());

async function signedIn() {
  const account = await createAccount(firebase, {});
  return { account, cookie: await sessionCookieFor(account) };
}

/** Sends and reads the whole reply; returns what the server confirmed as stored. */
async function send(body: ChatBody & { parentId?: string | null }, cookie: string): Promise<SavedExchange> {
  const response = await postChat(body, { cookie });
  expect(response.status, await response.clone().text()).toBe(200);
  const saved = dataOf<SavedExchange>(await readChunks(response), "saved");
  expect(saved).toBeDefined();
  return saved!;
}

/** The texts the model was last sent, in order. */
function lastModelMessages(): string[] {
  const chats = model.requests.filter((request) => request.path === "/v1/chat/completions");
  return (chats.at(-1)?.body?.messages ?? [])
    .filter((message) => message.role !== "system")
    .map((message) =>
      typeof message.content === "string" ? message.content : (message.content ?? []).map((part) => part.text).join(""),
    );
}

async function usedToday(uid: string) {
  const db = await getDb();
  const day = new Date().toISOString().slice(0, 10);
  const [row] = await db
    .select()
    .from(usageDaily)
    .where(and(eq(usageDaily.uid, uid), eq(usageDaily.day, day)));
  return row?.messages ?? 0;
}

/** The conversation page's data, as a reload gets it. */
async function page(id: string, cookie: string) {
  const response = await handle(
    appRequest(`/nuvara/${id}?_data=${encodeURIComponent("routes/nuvara.$conversationId")}`, { cookie }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as {
    conversation: { leafId: string | null };
    messages: Array<{
      id: string;
      role: string;
      parts: Array<{ type: string; text?: string }>;
      metadata?: { parentId?: string | null };
    }>;
  };
}

/** The texts of the branch a page shows: from its leaf up through the parents. */
async function shownTexts(id: string, cookie: string): Promise<string[]> {
  const data = await page(id, cookie);
  const byId = new Map(data.messages.map((message) => [message.id, message]));
  const texts: string[] = [];
  for (let at = data.conversation.leafId ? byId.get(data.conversation.leafId) : undefined; at;) {
    texts.unshift(at.parts.map((part) => part.text ?? "").join(""));
    at = at.metadata?.parentId ? byId.get(at.metadata.parentId) : undefined;
  }
  return texts;
}

function post(path: string, fields: Record<string, string>, cookie: string) {
  return handle(
    appRequest(path, {
      method: "POST",
      cookie,
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    }),
  );
}

const showVersion = (conversationId: string, messageId: string, cookie: string) =>
  post(
    `/nuvara/${conversationId}?_data=${encodeURIComponent("routes/nuvara.$conversationId")}`,
    { intent: "branch", message: messageId },
    cookie,
  );

/** A conversation of three exchanges, sent through the endpoint. */
async function threeTurns(cookie: string) {
  const body = firstMessage("Q1");
  const one = await send(body, cookie);
  const base = { conversationId: body.conversationId, model: "test-model" };
  const two = await send({ ...base, message: newMessage("Q2"), parentId: one.replyId }, cookie);
  const three = await send({ ...base, message: newMessage("Q3"), parentId: two.replyId }, cookie);
  return { base, body, one, two, three };
}

describe("branches through POST /api/chat", () => {
  it("editing an earlier message keeps the old version; the model gets the new branch only", async () => {
    const { account, cookie } = await signedIn();
    const { base, one, two } = await threeTurns(cookie);

    // Edit Q2: a new message beside it, following the first reply.
    const edit = await send({ ...base, message: newMessage("Q2, edited"), parentId: one.replyId }, cookie);
    expect(lastModelMessages()).toEqual(["Q1", "You said: Q1", "Q2, edited"]);
    expect(await shownTexts(base.conversationId, cookie)).toEqual([
      "Q1",
      "You said: Q1",
      "Q2, edited",
      "You said: Q2, edited",
    ]);
    // The earlier version is still there with what followed it.
    const db = await getDb();
    const rows = await db
      .select()
      .from(messages)
      .where(eq(messages.conversationId, base.conversationId))
      .orderBy(messages.seq);
    expect(rows.map((row) => row.content)).toEqual([
      "Q1",
      "You said: Q1",
      "Q2",
      "You said: Q2",
      "Q3",
      "You said: Q3",
      "Q2, edited",
      "You said: Q2, edited",
    ]);
    expect(rows.find((row) => row.id === edit.userMessageId)?.parentId).toBe(one.replyId);
    expect(rows.find((row) => row.id === two.userMessageId)?.parentId).toBe(one.replyId);

    // Answering on from the edit continues that branch only.
    await send({ ...base, message: newMessage("Q3 on the edit"), parentId: edit.replyId }, cookie);
    expect(lastModelMessages()).toEqual(["Q1", "You said: Q1", "Q2, edited", "You said: Q2, edited", "Q3 on the edit"]);
    // Five messages sent, five counted: one unit per new reply.
    expect(await usedToday(account.uid)).toBe(5);
  });

  it("regenerating an earlier reply keeps both replies; the model gets the branch up to its message", async () => {
    const { account, cookie } = await signedIn();
    const { base, body, one, three } = await threeTurns(cookie);

    model.enqueue({ type: "text", text: "Another first answer" });
    const again = await send({ ...base, message: body.message, parentId: null }, cookie);
    expect(again.userMessageId).toBe(body.message.id);
    expect(lastModelMessages()).toEqual(["Q1"]);
    expect(await shownTexts(base.conversationId, cookie)).toEqual(["Q1", "Another first answer"]);
    const db = await getDb();
    const replies = await db
      .select()
      .from(messages)
      .where(and(eq(messages.conversationId, base.conversationId), eq(messages.parentId, body.message.id)))
      .orderBy(messages.seq);
    // The user's message is not duplicated: both replies hang under it.
    expect(replies.map((row) => row.content)).toEqual(["You said: Q1", "Another first answer"]);
    expect(replies.map((row) => row.id)).toEqual([one.replyId, again.replyId]);
    expect(await usedToday(account.uid)).toBe(4);

    // A report on the regenerated reply quotes the message it answers (its parent), not the latest message before it.
    const reported = await findReportedExchange(db, account.uid, again.replyId);
    expect(reported).toMatchObject({ userText: "Q1", assistantText: "Another first answer" });

    // The last reply of the old branch can be regenerated too (without naming a parent: its own).
    model.enqueue({ type: "text", text: "A third take" });
    await send({ ...base, message: newMessage("Q3", three.userMessageId) }, cookie);
    expect(lastModelMessages()).toEqual(["Q1", "You said: Q1", "Q2", "You said: Q2", "Q3"]);
    expect((await shownTexts(base.conversationId, cookie)).at(-1)).toBe("A third take");
    expect(await usedToday(account.uid)).toBe(5);
  });

  it("refuses a parent that is not a reply of this conversation with 400, before the model and uncounted", async () => {
    const { account, cookie } = await signedIn();
    const { base, body, one, two } = await threeTurns(cookie);
    const other = await send(firstMessage("Elsewhere"), cookie);
    const used = await usedToday(account.uid);
    const requests = model.requests.length;

    const cases: Array<[unknown, RegExp]> = [
      [{ ...base, message: newMessage("x"), parentId: "not-a-uuid" }, /parent id must be a UUID/],
      [{ ...base, message: newMessage("x"), parentId: 42 }, /parent id must be a UUID/],
      [{ ...base, message: newMessage("x"), parentId: randomUUID() }, /isn't part of this conversation/],
      [{ ...base, message: newMessage("x"), parentId: other.replyId }, /isn't part of this conversation/],
      [{ ...base, message: newMessage("x"), parentId: two.userMessageId }, /follows a reply/],
      [{ ...firstMessage("new chat"), parentId: one.replyId }, /isn't part of this conversation/],
      // Answering Q1 again on a branch it is not on.
      [{ ...base, message: body.message, parentId: two.replyId }, /doesn't follow/],
    ];
    for (const [request, error] of cases) {
      const response = await postChat(request, { cookie });
      expect(response.status, JSON.stringify(request)).toBe(400);
      expect((await response.json()).error).toMatch(error);
    }
    // A sent message is never rewritten in place: an edit is a new message.
    const rewrite = await postChat(
      { ...base, message: newMessage("Q1 changed", body.message.id), parentId: null },
      { cookie },
    );
    expect(rewrite.status).toBe(409);
    expect((await rewrite.json()).error).toMatch(/can't be changed/);

    expect(model.requests.length).toBe(requests);
    expect(await usedToday(account.uid)).toBe(used);
    expect(await shownTexts(base.conversationId, cookie)).toHaveLength(6);
  });
});

describe("the branch shown", () => {
  it("switching versions is kept: a reload, the Markdown export and a share follow it", async () => {
    const { cookie } = await signedIn();
    const { base, one, two } = await threeTurns(cookie);
    const edit = await send({ ...base, message: newMessage("Q2, edited"), parentId: one.replyId }, cookie);
    const id = base.conversationId;

    const exported = async () => {
      const response = await handle(appRequest(`/api/conversations/${id}/markdown`, { cookie }));
      expect(response.status).toBe(200);
      return response.text();
    };
    let markdown = await exported();
    expect(markdown).toContain("Q2, edited");
    expect(markdown).not.toContain("Q3");

    // Back to the first version of Q2: its latest path (Q3 and its reply) is shown again.
    expect((await showVersion(id, two.userMessageId, cookie)).status).toBe(200);
    expect(await shownTexts(id, cookie)).toEqual(["Q1", "You said: Q1", "Q2", "You said: Q2", "Q3", "You said: Q3"]);
    markdown = await exported();
    expect(markdown).toContain("You said: Q3");
    expect(markdown).not.toContain("edited");

    const shared = await post(`/api/conversations/${id}/share`, { intent: "create" }, cookie);
    expect(shared.status).toBe(201);
    const link = (await shared.json()).share as { path: string; id: string };
    const html = await (await handle(appRequest(link.path))).text();
    expect(html).toContain("You said: Q3");
    expect(html).not.toContain("Q2, edited");

    // A copy of the share is one branch, shown whole.
    const copied = await post(link.path, { intent: "continue" }, cookie);
    expect(copied.status).toBe(302);
    const copyId = copied.headers.get("Location")!.split("/").pop()!;
    expect(await shownTexts(copyId, cookie)).toEqual([
      "Q1",
      "You said: Q1",
      "Q2",
      "You said: Q2",
      "Q3",
      "You said: Q3",
    ]);

    // A send names its parent on the branch shown; the new reply becomes the branch shown.
    await send({ ...base, message: newMessage("Q4"), parentId: edit.replyId }, cookie);
    expect((await shownTexts(id, cookie)).slice(2)).toEqual([
      "Q2, edited",
      "You said: Q2, edited",
      "Q4",
      "You said: Q4",
    ]);
  });

  it("refuses a version of another conversation or user, and a malformed id, with 400; another's conversation is a 404", async () => {
    const owner = await signedIn();
    const { base, two } = await threeTurns(owner.cookie);
    const elsewhere = await send(firstMessage("Elsewhere"), owner.cookie);
    for (const message of ["", "nope", randomUUID(), elsewhere.replyId]) {
      const response = await showVersion(base.conversationId, message, owner.cookie);
      expect(response.status).toBe(400);
      expect((await response.json()).error).toBe("That version isn't part of this conversation.");
    }
    const intruder = await signedIn();
    expect((await showVersion(base.conversationId, two.userMessageId, intruder.cookie)).status).toBe(404);
    const db = await getDb();
    const [row] = await db.select().from(conversations).where(eq(conversations.id, base.conversationId));
    expect(row.currentLeafId).not.toBe(two.replyId);
    expect((await shownTexts(base.conversationId, owner.cookie)).at(-1)).toBe("You said: Q3");
  });
});
