import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { addMemory, listMemories } from "~/data/memories.server";
import { MAX_MEMORIES, MAX_MEMORY_LENGTH, MEMORY_FULL } from "~/data/memory-rules";
import { exportAccountData, deleteUserRows } from "~/data/account.server";
import { getDb } from "~/db/client.server";
import { memories } from "~/db/schema";
import { action as memoryAction, loader as memoryLoader } from "~/routes/dashboard_.memory";
import { action as adminMemoryAction, loader as adminMemoryLoader } from "~/routes/admin.memory";
import { get, postForm, respond } from "./admin-support";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import {
  chunkOfType,
  dataOf,
  firstMessage,
  nothingUnderWay,
  postChat,
  readChunks,
  replyText,
  waitUntil,
} from "./chat-support";

/**
 * Memory across chats (docs/decisions/103), through the chat endpoint and the
 * memory page's action, against the scripted model server: what the model
 * saves in one chat is in the next chat's system prompt, and only then.
 */

// "switchable" is a role only the admins' switch tests use, so their choices touch no other test.
const ENV = { LLM_MODELS: "test-model", LLM_TIMEOUT_MS: "2000", MEMORY_ROLES: "none,premium,admin,switchable" };

const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
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

/** The last chat completion request the model server received. */
function lastChatRequest() {
  const chats = model.requests.filter((request) => request.path === "/v1/chat/completions");
  return chats[chats.length - 1]!.body!;
}

function systemPromptSent(): string {
  const system = lastChatRequest().messages!.find((message) => message.role === "system");
  return typeof system?.content === "string" ? system.content : "";
}

function toolsOffered(): string[] {
  return (lastChatRequest().tools ?? []).map((tool) => tool.function.name);
}

/** One chat: the model may script a tool call first; the reply's chunks. */
async function chat(cookie: string, text: string, extra: Record<string, unknown> = {}) {
  const chunks = await readChunks(await postChat({ ...firstMessage(text), ...extra }, { cookie }));
  expect(chunkOfType(chunks, "error")).toBeUndefined();
  return chunks;
}

/** Posts one of the memory page's forms, as its fetcher does. */
async function memoryForm(cookie: string, form: Record<string, string>) {
  const request = appRequest("/dashboard/memory?_data=routes/dashboard_.memory", {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const response = await memoryAction({ request, params: {}, context: {} });
  return { status: response.status, body: (await response.json()) as { memory: Record<string, unknown> } };
}

async function memoryPage(cookie: string) {
  const response = await memoryLoader({
    request: appRequest("/dashboard/memory", { cookie }),
    params: {},
    context: {},
  });
  return (await response.json()) as {
    memories: Array<{ id: string; text: string; source: string }>;
    enabled: boolean;
    allowed: boolean;
    switchedOff: boolean;
  };
}

const FACT = "Prefers answers in metric units.";

describe("memory across chats", () => {
  it("a fact saved by the model's remember tool in one chat is in the next chat's system prompt; deleting it stops its use", async () => {
    const { account, cookie } = await signedIn();
    model.enqueue(
      { type: "tool-calls", calls: [{ name: "remember", arguments: { fact: FACT } }] },
      { type: "text", text: "Noted: metric it is." },
    );
    const first = await chat(cookie, "Please remember that I like metric units.");
    // The model was offered the tool, and the reply shows what was saved.
    expect(toolsOffered()).toEqual(expect.arrayContaining(["remember", "forget"]));
    expect(chunkOfType(first, "tool-output-available")?.output).toEqual({ saved: FACT });
    expect(replyText(first)).toBe("Noted: metric it is.");
    // Nothing was remembered before: no "used memories" part in the first reply.
    expect(dataOf(first, "memories")).toBeUndefined();

    const page = await memoryPage(cookie);
    expect(page.memories).toEqual([expect.objectContaining({ text: FACT, source: "model" })]);

    model.enqueue({ type: "text", text: "About 5 km." });
    const second = await chat(cookie, "How far is a 5k run in metric units?");
    expect(systemPromptSent()).toContain(`- ${FACT}`);
    expect(dataOf(second, "memories")).toEqual({ memories: [{ id: page.memories[0].id, text: FACT }] });

    // The export carries it.
    const exported = await exportAccountData(
      await getDb(),
      { uid: account.uid } as Parameters<typeof exportAccountData>[1],
      { role: "", plan: "Free" },
    );
    expect(exported.memories).toEqual([expect.objectContaining({ text: FACT, source: "model" })]);
    expect(exported.preferences.memoryEnabled).toBe(true);

    const deleted = await memoryForm(cookie, { intent: "delete", id: page.memories[0].id });
    expect(deleted).toMatchObject({ status: 200, body: { memory: { ok: true } } });
    model.enqueue({ type: "text", text: "About 5 km." });
    const third = await chat(cookie, "How far is a 5k run in metric units?");
    expect(systemPromptSent()).not.toContain(FACT);
    expect(dataOf(third, "memories")).toBeUndefined();
  });

  it("the memories most relevant to the message come first, within the prompt's bound", async () => {
    const { account, cookie } = await signedIn();
    const db = await getDb();
    // Enough memories to pass the 2,000-character bound, the relevant one saved first (the oldest).
    await addMemory(db, account.uid, { text: "Has a golden retriever called Biscuit.", source: "user" });
    for (let index = 0; index < 12; index += 1) {
      await addMemory(db, account.uid, {
        text: `Note ${index}: ${"works on spreadsheets and quarterly budgets for a small bakery. ".repeat(3)}`,
        source: "user",
      });
    }
    model.enqueue({ type: "text", text: "Biscuit will love it." });
    const chunks = await chat(cookie, "What toys would my dog like?");
    const prompt = systemPromptSent();
    const section = prompt.slice(prompt.indexOf("What you remember about the user"));
    const lines = section.split("\n").filter((line) => line.startsWith("- "));
    // "dog" matches no memory's words: the latest come first, up to the bound, and the oldest is left out.
    expect(lines.reduce((total, line) => total + line.length - 2, 0)).toBeLessThanOrEqual(2_000);
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.length).toBeLessThan(13);
    expect(section).not.toContain("Biscuit");
    const used = dataOf<{ memories: unknown[] }>(chunks, "memories")!.memories;
    expect(used).toHaveLength(lines.length);

    model.enqueue({ type: "text", text: "Biscuit will love it." });
    await chat(cookie, "What toys would my golden retriever like?");
    const ranked = systemPromptSent();
    const first = ranked.slice(ranked.indexOf("What you remember about the user")).split("\n")[1];
    expect(first).toBe("- Has a golden retriever called Biscuit.");
  });

  it("off means off: no tool offered, nothing recalled, and the switch comes back on", async () => {
    const { account, cookie } = await signedIn();
    await addMemory(await getDb(), account.uid, { text: FACT, source: "user" });
    const off = await memoryForm(cookie, { intent: "switch", enabled: "off" });
    expect(off).toMatchObject({ status: 200, body: { memory: { ok: true, notice: expect.stringMatching(/off/) } } });
    expect((await memoryPage(cookie)).enabled).toBe(false);

    model.enqueue({ type: "text", text: "Sure." });
    const chunks = await chat(cookie, "Which units do I like, metric?");
    expect(toolsOffered()).not.toContain("remember");
    expect(toolsOffered()).not.toContain("forget");
    expect(systemPromptSent()).not.toContain(FACT);
    expect(systemPromptSent()).not.toContain("What you remember");
    expect(dataOf(chunks, "memories")).toBeUndefined();

    // A model that calls it anyway saves nothing.
    model.enqueue(
      { type: "tool-calls", calls: [{ name: "remember", arguments: { fact: "Likes tea." } }] },
      { type: "text", text: "Ok." },
    );
    await readChunks(await postChat(firstMessage("I like tea"), { cookie }));
    expect((await listMemories(await getDb(), account.uid)).map((memory) => memory.text)).toEqual([FACT]);

    await memoryForm(cookie, { intent: "switch", enabled: "on" });
    model.enqueue({ type: "text", text: "Metric." });
    await chat(cookie, "Which units do I like, metric?");
    expect(systemPromptSent()).toContain(FACT);
    expect(toolsOffered()).toContain("remember");
  });

  it("a temporary chat neither reads nor writes memory", async () => {
    const { account, cookie } = await signedIn();
    await addMemory(await getDb(), account.uid, { text: FACT, source: "user" });
    model.enqueue({ type: "text", text: "Sure." });
    const body = { ...firstMessage("Which metric units do I like?"), temporary: true };
    const chunks = await readChunks(await postChat(body, { cookie }));
    expect(replyText(chunks)).toBe("Sure.");
    expect(systemPromptSent()).not.toContain(FACT);
    expect(toolsOffered()).not.toContain("remember");
    expect(dataOf(chunks, "memories")).toBeUndefined();

    // Its second message too (the conversation now exists, as a temporary one).
    model.enqueue(
      { type: "tool-calls", calls: [{ name: "remember", arguments: { fact: "Is planning a surprise." } }] },
      { type: "text", text: "Ok." },
    );
    await readChunks(
      await postChat(
        {
          conversationId: body.conversationId,
          message: { id: randomUUID(), role: "user", parts: [{ type: "text", text: "Metric units again?" }] },
          model: "test-model",
          parentId: null,
        },
        { cookie },
      ),
    );
    expect(systemPromptSent()).not.toContain(FACT);
    expect(toolsOffered()).not.toContain("remember");
    expect((await listMemories(await getDb(), account.uid)).map((memory) => memory.text)).toEqual([FACT]);
  });

  it("another account never sees a user's memories, in its chats or on its page", async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const saved = await addMemory(await getDb(), owner.account.uid, { text: FACT, source: "user" });
    expect(saved.ok).toBe(true);
    model.enqueue({ type: "text", text: "Hello." });
    await chat(other.cookie, "Which metric units do I prefer?");
    expect(systemPromptSent()).not.toContain(FACT);
    expect((await memoryPage(other.cookie)).memories).toEqual([]);
    // Nor edits or deletes it by its id.
    const id = saved.ok ? saved.id : "";
    expect(await memoryForm(other.cookie, { intent: "edit", id, text: "Mine now." })).toMatchObject({ status: 404 });
    expect(await memoryForm(other.cookie, { intent: "delete", id })).toMatchObject({ status: 404 });
    expect((await memoryPage(owner.cookie)).memories.map((memory) => memory.text)).toEqual([FACT]);
  });

  it("a role left out of MEMORY_ROLES has no memory tool and recalls nothing", async () => {
    const { account, cookie } = await signedIn("basic");
    await addMemory(await getDb(), account.uid, { text: FACT, source: "user" });
    model.enqueue({ type: "text", text: "Hello." });
    await chat(cookie, "Which metric units do I like?");
    expect(toolsOffered()).not.toContain("remember");
    expect(systemPromptSent()).not.toContain(FACT);
    expect(await memoryForm(cookie, { intent: "add", text: "Likes tea." })).toMatchObject({
      status: 403,
      body: { memory: { ok: false, error: expect.stringMatching(/not part of your plan/) } },
    });
  });

  it("the bounds: a memory too long, an empty one, and a full memory get clear messages, from the page and the model", async () => {
    const { account, cookie } = await signedIn();
    const long = "x".repeat(MAX_MEMORY_LENGTH + 1);
    expect(await memoryForm(cookie, { intent: "add", text: long })).toMatchObject({
      status: 400,
      body: {
        memory: {
          ok: false,
          error: `Please keep a memory to ${MAX_MEMORY_LENGTH} characters or fewer (this one has 501).`,
        },
      },
    });
    expect(await memoryForm(cookie, { intent: "add", text: "   " })).toMatchObject({
      status: 400,
      body: { memory: { ok: false, error: expect.stringMatching(/empty/) } },
    });
    const added = await memoryForm(cookie, { intent: "add", text: "  Likes tea.  " });
    expect(added).toMatchObject({ status: 200, body: { memory: { ok: true, notice: "Memory saved." } } });
    const edited = await memoryForm(cookie, { intent: "edit", id: String(added.body.memory.id), text: long });
    expect(edited).toMatchObject({ status: 400, body: { memory: { ok: false } } });
    expect((await memoryPage(cookie)).memories.map((memory) => memory.text)).toEqual(["Likes tea."]);

    // Filled up (at once: the count holds under concurrent saves).
    const db = await getDb();
    const results = await Promise.all(
      Array.from({ length: MAX_MEMORIES + 10 }, (_, index) =>
        addMemory(db, account.uid, { text: `Fact number ${index}.`, source: "user" }),
      ),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(MAX_MEMORIES - 1);
    expect(results.find((result) => !result.ok)).toEqual({ ok: false, error: MEMORY_FULL });
    expect(await memoryForm(cookie, { intent: "add", text: "One more." })).toMatchObject({
      status: 400,
      body: { memory: { ok: false, error: MEMORY_FULL } },
    });
    model.enqueue(
      { type: "tool-calls", calls: [{ name: "remember", arguments: { fact: "Likes coffee too." } }] },
      { type: "text", text: "Memory is full." },
    );
    const chunks = await chat(cookie, "Remember that I like coffee too");
    expect(chunkOfType(chunks, "tool-output-available")?.output).toEqual({ error: MEMORY_FULL });

    // The account's deletion takes them with it.
    await waitUntil("the replies to be stored", nothingUnderWay);
    await deleteUserRows(db, account.uid);
    expect(await db.select().from(memories).where(eq(memories.uid, account.uid))).toEqual([]);
  });
});

describe("the admins' memory switch per role (docs/decisions/105)", () => {
  /** Posts /admin/memory's form as the page does. */
  async function switchMemory(cookie: string, roleKey: string, enabled: "on" | "off") {
    const response = await respond(adminMemoryAction, postForm("/admin/memory", { roleKey, enabled }, { cookie }));
    return { status: response.status, body: (await response.json()) as { notice?: string; error?: string } };
  }

  async function adminCookie() {
    return sessionCookieFor(await createAccount(firebase, { role: "admin", prefix: "admin" }));
  }

  it("switched off for a role, the next message offers no memory tool and recalls nothing; the page says so and keeps the memories; on again restores", async () => {
    const admin = await adminCookie();
    const { account, cookie } = await signedIn("switchable");
    await addMemory(await getDb(), account.uid, { text: FACT, source: "user" });
    // MEMORY_ROLES names the role: memory works before any switch.
    model.enqueue({ type: "text", text: "Metric." });
    await chat(cookie, "Which metric units do I like?");
    expect(toolsOffered()).toEqual(expect.arrayContaining(["remember", "forget"]));
    expect(systemPromptSent()).toContain(`- ${FACT}`);

    expect(await switchMemory(admin, "switchable", "off")).toEqual({
      status: 200,
      body: {
        notice:
          "Memory is off for switchable: from their next message the assistant neither reads nor saves memories. Their memories are kept.",
      },
    });
    model.enqueue({ type: "text", text: "I don't know." });
    await chat(cookie, "Which metric units do I like?");
    expect(toolsOffered()).not.toContain("remember");
    expect(toolsOffered()).not.toContain("forget");
    expect(systemPromptSent()).not.toContain(FACT);
    const page = await memoryPage(cookie);
    expect(page).toMatchObject({ allowed: false, switchedOff: true });
    expect(page.memories.map((memory) => memory.text)).toEqual([FACT]);
    expect(await memoryForm(cookie, { intent: "add", text: "Likes tea." })).toMatchObject({ status: 403 });
    // The admins' table shows the choice and who made it.
    const rows = (await (await respond(adminMemoryLoader, get("/admin/memory", admin))).json()) as {
      rows: Array<{ roleKey: string; enabled: boolean; byDefault: boolean; chosen: { by: string } | null }>;
    };
    expect(rows.rows.find((row) => row.roleKey === "switchable")).toMatchObject({
      enabled: false,
      byDefault: true,
      chosen: { by: expect.stringMatching(/^admin/) },
    });

    expect((await switchMemory(admin, "switchable", "on")).status).toBe(200);
    model.enqueue({ type: "text", text: "Metric." });
    await chat(cookie, "Which metric units do I like?");
    expect(toolsOffered()).toEqual(expect.arrayContaining(["remember", "forget"]));
    expect(systemPromptSent()).toContain(`- ${FACT}`);
    expect(await memoryPage(cookie)).toMatchObject({ allowed: true, switchedOff: false });
  });

  it("the admins' choice wins over MEMORY_ROLES: a role it leaves out gets memory once switched on; a role never switched follows it", async () => {
    const admin = await adminCookie();
    const { account, cookie } = await signedIn("leftout");
    await addMemory(await getDb(), account.uid, { text: FACT, source: "user" });
    model.enqueue({ type: "text", text: "Hello." });
    await chat(cookie, "Which metric units do I like?");
    expect(toolsOffered()).not.toContain("remember");
    // Left out by the variable, not switched off by an admin: the page says it is not in the plan.
    expect(await memoryPage(cookie)).toMatchObject({ allowed: false, switchedOff: false });

    expect((await switchMemory(admin, "leftout", "on")).status).toBe(200);
    model.enqueue({ type: "text", text: "Metric." });
    await chat(cookie, "Which metric units do I like?");
    expect(toolsOffered()).toEqual(expect.arrayContaining(["remember", "forget"]));
    expect(systemPromptSent()).toContain(`- ${FACT}`);
    expect(await memoryPage(cookie)).toMatchObject({ allowed: true });
  });

  it("only admins switch it, and a bad role gets a clear message; nothing is stored", async () => {
    const { cookie } = await signedIn("premium");
    const refused = await switchMemory(cookie, "premium", "off");
    expect(refused).toEqual({ status: 403, body: { error: "This page is for admins only." } });
    expect(await memoryPage(cookie)).toMatchObject({ allowed: true, switchedOff: false });
    expect(await switchMemory(await adminCookie(), "Not A Role!", "off")).toEqual({
      status: 400,
      body: { error: "A role is a word such as pro: lowercase letters, digits, - and _, at most 32." },
    });
  });
});
