import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TOOL_UNAVAILABLE } from "~/chat/chat-endpoint.server";
import { chatBodyBytes } from "~/settings/chat-limits";
import { listConversations } from "~/data/conversations.server";
import { createPromptTool, setPromptToolEnabled } from "~/data/prompt-tools/prompt-tools.server";
import { BUILT_IN_PROMPT_TOOLS } from "~/data/prompt-tools/built-in-tools.server";
import { getDb } from "~/db/client.server";
import { conversations, messages } from "~/db/schema";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { dataOf, firstMessage, messagesToday, newMessage, postChat, readChunks, waitUntil } from "./chat-support";

/**
 * A new chat's conversation is written only with its first exchange
 * (docs/decisions/033): failures leave no empty chat, a prompt tool's chat
 * starts with the tool's instructions on its first send; and the per-role
 * message cap (MESSAGE_MAX_CHARS) measured against the body limit.
 */
const ENV = {
  LLM_MODELS: "test-model",
  QUOTA_DAILY_MESSAGES: "none=50",
  MESSAGE_MAX_CHARS: "none=20000",
  LLM_TIMEOUT_MS: "1000",
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

beforeEach(() => model.reset());

async function signedIn(role = "") {
  const account = await createAccount(firebase, { role });
  return { account, cookie: await sessionCookieFor(account) };
}

async function ownConversations(uid: string) {
  return listConversations(await getDb(), uid);
}

function lastSystemPrompt(): string {
  const chats = model.requests.filter((request) => request.path === "/v1/chat/completions");
  const sent = chats.at(-1)?.body?.messages ?? [];
  const system = sent.find((message) => message.role === "system");
  return typeof system?.content === "string" ? system.content : "";
}

describe("a new chat exists only once its first exchange is stored", () => {
  it("a failed first send leaves no conversation (and gives the quota back); the retry creates it", async () => {
    const { account, cookie } = await signedIn();
    model.enqueue({ type: "http-error", status: 500, message: "boom" });
    const body = firstMessage("Hello?");
    const failed = await readChunks(await postChat(body, { cookie }));
    expect(failed.some((chunk) => chunk.type === "error")).toBe(true);
    expect(failed.some((chunk) => chunk.type === "data-conversation")).toBe(false);
    await waitUntil("the quota to be given back", async () => (await messagesToday(account.uid)) === 0);
    expect(await ownConversations(account.uid)).toEqual([]);

    // Retry of the same message: now the conversation is created, with the exchange.
    const retried = await readChunks(await postChat(body, { cookie }));
    expect(dataOf(retried, "conversation")).toEqual({ id: body.conversationId });
    expect((await ownConversations(account.uid)).map((item) => item.id)).toEqual([body.conversationId]);
  });

  it("a send stalled until the timeout leaves no conversation", async () => {
    const { account, cookie } = await signedIn();
    model.enqueue({ type: "stall" });
    const chunks = await readChunks(await postChat(firstMessage("Anyone there?"), { cookie }));
    expect(chunks.some((chunk) => chunk.type === "error")).toBe(true);
    expect(await ownConversations(account.uid)).toEqual([]);
  });
});

describe("a prompt tool's chat", () => {
  it("the first send creates the conversation with the tool's instructions and name, and the model gets them", async () => {
    const { account, cookie } = await signedIn();
    const translate = BUILT_IN_PROMPT_TOOLS.find((tool) => tool.id === "translate")!;
    const body = {
      ...firstMessage("Text to translate:\nGood morning\n\nTranslate into:\nFrench"),
      toolId: "translate",
    };
    const chunks = await readChunks(await postChat(body, { cookie }));
    expect(dataOf(chunks, "saved")).toMatchObject({ title: "Translate", status: "completed" });
    expect(lastSystemPrompt()).toContain(translate.systemPrompt);
    const [row] = await (await getDb()).select().from(conversations).where(eq(conversations.id, body.conversationId));
    expect(row).toMatchObject({ uid: account.uid, title: "Translate", systemPrompt: translate.systemPrompt });

    // Later sends keep the conversation's own instructions (a toolId then changes nothing).
    await readChunks(
      await postChat({ ...body, create: false, toolId: "summarize", message: newMessage("And Spanish?") }, { cookie }),
    );
    expect(lastSystemPrompt()).toContain(translate.systemPrompt);
  });

  it("an unknown or switched-off tool is refused with a clear 400; nothing is stored or counted", async () => {
    const { account, cookie } = await signedIn();
    const db = await getDb();
    const tool = await createPromptTool(db, {
      name: `Switched off ${randomUUID().slice(0, 8)}`,
      description: "A tool about to be switched off.",
      category: "Writing",
      systemPrompt: "Be a pirate.",
      inputFields: [{ label: "Text", kind: "text", required: true }],
    });
    await setPromptToolEnabled(db, tool.id, false);
    for (const toolId of ["no-such-tool", tool.id]) {
      const response = await postChat({ ...firstMessage("Hi"), toolId }, { cookie });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: TOOL_UNAVAILABLE });
    }
    expect(await ownConversations(account.uid)).toEqual([]);
    expect(await messagesToday(account.uid)).toBe(0);

    // Admins may still try a switched-off tool, as on its page.
    const owner = await signedIn("admin");
    const body = { ...firstMessage("Ahoy?"), toolId: tool.id };
    expect(dataOf(await readChunks(await postChat(body, { cookie: owner.cookie })), "saved")).toMatchObject({
      status: "completed",
    });
    expect(lastSystemPrompt()).toContain("Be a pirate.");
  });
});

describe("message length: a cap per role (MESSAGE_MAX_CHARS) within the body limit", () => {
  // 4-byte characters (2 UTF-16 units each, as the browser counts length).
  const emoji = (units: number) => "😀".repeat(Math.floor(units / 2)) + (units % 2 ? "x" : "");

  it("a message of exactly the default cap in 4-byte characters is accepted; one more character is a clear 400", async () => {
    const { account, cookie } = await signedIn("premium");
    const longest = firstMessage(emoji(100_000));
    const size = new TextEncoder().encode(JSON.stringify(longest)).byteLength;
    expect(size).toBeGreaterThanOrEqual(200_000); // 50,000 characters of 4 bytes
    expect(size).toBeLessThan(chatBodyBytes(100_000));
    const accepted = await postChat(longest, { cookie });
    expect(accepted.status).toBe(200);
    expect(dataOf(await readChunks(accepted), "saved")).toMatchObject({ status: "completed" });
    const [stored] = await (await getDb()).select().from(messages).where(eq(messages.id, longest.message.id));
    expect(stored.content).toHaveLength(100_000);

    const over = await postChat(firstMessage(emoji(100_000) + "x"), { cookie });
    expect(over.status).toBe(400);
    expect(await over.json()).toEqual({ error: "Your message is 100,001 characters long; the limit is 100,000." });
    expect(await messagesToday(account.uid)).toBe(1);
  });

  it("a role with a lower cap (none=20000) is held to it, counting nothing for a refused message", async () => {
    const { account, cookie } = await signedIn("");
    expect((await postChat(firstMessage("y".repeat(20_000)), { cookie })).status).toBe(200);
    const over = await postChat(firstMessage("y".repeat(20_001)), { cookie });
    expect(over.status).toBe(400);
    expect(await over.json()).toEqual({ error: "Your message is 20,001 characters long; the limit is 20,000." });
    await waitUntil("the first reply to be stored", async () => (await ownConversations(account.uid)).length === 1);
    expect(await messagesToday(account.uid)).toBe(1);
  });

  it("a body past the largest cap's limit is refused unread with 413", async () => {
    const { cookie } = await signedIn("premium");
    const response = await postChat(firstMessage("z".repeat(chatBodyBytes(100_000))), { cookie });
    expect(response.status).toBe(413);
  });
});
