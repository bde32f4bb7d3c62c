import { randomInt } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ConversationEvent } from "~/chat/live/conversation-event";
import { subscribeToConversations } from "~/chat/live/conversation-events.server";
import { generateTitle, type TitleJob } from "~/chat/generated-title.server";
import { usageReport } from "~/data/admin-usage.server";
import { createConversation, getConversation, renameConversation } from "~/data/conversations.server";
import { getDb } from "~/db/client.server";
import { usageDaily } from "~/db/schema";
import { utcDay } from "~/time/day";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { firstMessage, postChat, readChunks, waitUntil } from "./chat-support";

/**
 * Generated titles (docs/decisions/086): written by LLM_TITLE_MODEL after a
 * new chat's first reply and streamed to the user's lists; on any failure
 * the first-line title stays; a rename meanwhile is never overwritten; the
 * call's tokens are the user's usage, where /admin/usage counts them.
 */
const ENV = {
  LLM_MODELS: "big-model,small-model",
  // small-model is the cheapest: the default title model.
  LLM_MODEL_PRICES: "big-model=10/30;small-model=1/2",
  QUOTA_DAILY_MESSAGES: "none=50",
  LLM_TIMEOUT_MS: "2000",
};
let restoreEnv: () => void;
const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer({ models: ["big-model", "small-model"] });
  restoreEnv = setAppEnv({ ...ENV, LLM_BASE_URL: model.url });
});

afterAll(async () => {
  restoreEnv();
  await model.close();
  await firebase.close();
});

beforeEach(() => model.reset());

function listen(uid: string) {
  const events: ConversationEvent[] = [];
  const stop = subscribeToConversations(uid, (event) => events.push(event));
  const titles = () => events.flatMap((event) => (event.type === "title" ? [event] : []));
  return { events, titles, stop };
}

async function storedChat(title = "Plan a trip to Lisbon in May", usageDay = utcDay(new Date())) {
  const account = await createAccount(firebase);
  const db = await getDb();
  const conversation = await createConversation(db, { uid: account.uid, title });
  const job: TitleJob = {
    uid: account.uid,
    conversationId: conversation.id,
    userText: `${title}, with a day in Sintra`,
    replyText: "Here is a plan for five days.",
    storedTitle: title,
    usageDay,
    role: "none",
  };
  return { account, db, job };
}

async function usageOf(uid: string) {
  const [row] = await (await getDb()).select().from(usageDaily).where(eq(usageDaily.uid, uid));
  return row;
}

describe("generated titles", () => {
  it("after a new chat's first reply, the cheapest model writes a title, streamed to the user's lists", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    const live = listen(account.uid);
    model.enqueue({ type: "text", text: "Lisbon in May is lovely." });
    model.enqueueTitle("five quiet days in Lisbon", { type: "text", text: ["Quiet ", "Days ", "in Lisbon"] });
    const body = { ...firstMessage("Plan **five quiet days in Lisbon** for me", "big-model") };
    const chunks = await readChunks(await postChat(body, { cookie }));
    expect(chunks.find((chunk) => chunk.type === "data-saved")).toBeDefined();
    const db = await getDb();
    await waitUntil("the title request", () => model.titleRequests.length > 0, 20_000);
    await waitUntil(
      "the generated title",
      async () => (await getConversation(db, account.uid, body.conversationId))?.title === "Quiet Days in Lisbon",
      20_000,
    );
    await waitUntil("the run's end", () => live.events.some((event) => event.type === "run-ended"), 20_000);
    live.stop();
    const [request] = model.titleRequests;
    expect(request.body?.model).toBe("small-model");
    expect(JSON.stringify(request.body?.messages)).toContain("five quiet days in Lisbon");
    // The reply's own request is the only one among the replies' requests.
    expect(model.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(1);
    const titles = live.titles().map((event) => [event.title, event.generating]);
    expect(titles).toContainEqual(["Quiet", true]);
    expect(titles.at(-1)).toEqual(["Quiet Days in Lisbon", false]);
    // The run's start and end reached the list too.
    expect(live.events.map((event) => event.type)).toEqual(expect.arrayContaining(["run-started", "run-ended"]));
  });

  it("keeps the first-line title when the title model fails, and shows it again if pieces were shown", async () => {
    const { db, job } = await storedChat();
    const live = listen(job.uid);
    model.enqueueTitle("Lisbon", { type: "drop", text: ["Half ", "a "] });
    const outcome = await generateTitle(db, job);
    live.stop();
    expect(outcome).toMatchObject({ kind: "kept", reason: "failed" });
    expect((await getConversation(db, job.uid, job.conversationId))?.title).toBe(job.storedTitle);
    expect(live.titles().at(-1)).toMatchObject({ title: job.storedTitle, generating: false });

    model.enqueueTitle("Lisbon", { type: "http-error", status: 500, message: "down" });
    expect(await generateTitle(db, job)).toMatchObject({ kind: "kept", reason: "failed" });
    expect((await getConversation(db, job.uid, job.conversationId))?.title).toBe(job.storedTitle);
  });

  it("counts nothing for a title call refused before any answer", async () => {
    const { db, job } = await storedChat();
    model.enqueueTitle("Lisbon", { type: "http-error", status: 500, message: "down" });
    expect(await generateTitle(db, job)).toMatchObject({ kind: "kept", reason: "failed" });
    expect(await usageOf(job.uid)).toBeUndefined();
  });

  it("never overwrites a title the user renamed while it was being written", async () => {
    const { db, job } = await storedChat();
    const live = listen(job.uid);
    model.enqueueTitle("Lisbon", { type: "text", text: ["Lisbon ", "Spring ", "Trip"], chunkDelayMs: 150 });
    const generating = generateTitle(db, job);
    await waitUntil("a first piece of the title", () => live.titles().length > 0);
    expect(await renameConversation(db, job.uid, job.conversationId, "My own name")).toBe(true);
    expect(await generating).toMatchObject({ kind: "kept", reason: "renamed", title: "My own name" });
    live.stop();
    expect((await getConversation(db, job.uid, job.conversationId))?.title).toBe("My own name");
    // The lists that were shown the pieces end on the user's name.
    expect(live.titles().at(-1)).toMatchObject({ title: "My own name", generating: false });
  });

  it("meters the title call as the user's usage (no message counted), seen on /admin/usage", async () => {
    // Counted on a day of its own, years ahead: the report's top ten that day is this user, whatever
    // else a shared database holds (other runs' users may have spent more today).
    const day = new Date(Date.UTC(2031, 0, 1) + randomInt(3650) * 86_400_000);
    const { db, job } = await storedChat(undefined, utcDay(day));
    model.enqueueTitle("Lisbon", {
      type: "text",
      text: "Lisbon In Spring",
      usage: { prompt_tokens: 100, completion_tokens: 4 },
    });
    expect(await generateTitle(db, job)).toEqual({ kind: "generated", title: "Lisbon In Spring" });
    const usage = await usageOf(job.uid);
    expect(usage).toMatchObject({ messages: 0, inputTokens: 100, outputTokens: 4 });
    // small-model: $1 / $2 per million tokens.
    expect(usage.costMicroUsd).toBe(100 * 1 + 4 * 2);
    const report = await usageReport(db, day);
    expect(report.top.find((row) => row.uid === job.uid)).toMatchObject({ tokens: 104, costMicroUsd: 108 });
  });

  it("uses LLM_TITLE_MODEL when set, and no model at all when it is off", async () => {
    const { db, job } = await storedChat();
    const restore = setAppEnv({ ...ENV, LLM_BASE_URL: model.url, LLM_TITLE_MODEL: "title-model" });
    try {
      model.enqueueTitle("Lisbon", { type: "text", text: "Lisbon Trip" });
      expect(await generateTitle(db, job)).toMatchObject({ kind: "generated" });
      expect(model.titleRequests.at(-1)?.body?.model).toBe("title-model");
    } finally {
      restore();
    }
    const off = setAppEnv({ ...ENV, LLM_BASE_URL: model.url, LLM_TITLE_MODEL: "off" });
    try {
      const before = model.titleRequests.length;
      expect(await generateTitle(db, job)).toMatchObject({ kind: "kept", reason: "off" });
      expect(model.titleRequests).toHaveLength(before);
    } finally {
      off();
    }
  });
});
