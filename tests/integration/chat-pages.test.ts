import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig, resetConfig } from "~/config.server";
import { createConversation } from "~/data/conversations.server";
import { saveExchange } from "~/data/messages.server";
import { getCustomInstructions } from "~/data/preferences.server";
import { getDb } from "~/db/client.server";
import { DEMO_MODEL_ID, DEMO_MODEL_LABEL } from "~/llm/demo-model.server";
import { resolveModelRegistry } from "~/llm/models.server";
import { loader as exportLoader } from "~/routes/api.conversations.$conversationId.markdown";
import { action as layoutAction, loader as layoutLoader } from "~/routes/nuvara";
import { action as conversationAction, loader as conversationLoader } from "~/routes/nuvara.$conversationId";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { healAll, setLatency } from "../support/faults";
import { startModelServer, type ModelServer } from "../support/model-server";
import { respond } from "./admin-support";
import { dataOf, firstMessage, postChat, readChunks } from "./chat-support";

const ENV = {
  LLM_MODELS: "test-model,premium-model",
  LLM_ROLE_MODELS: "none=test-model",
  QUOTA_DAILY_MESSAGES: "tiny=3",
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

async function signedIn(role?: string) {
  const account = await createAccount(firebase, { role });
  return { account, cookie: await sessionCookieFor(account) };
}

function form(path: string, fields: Record<string, string>, cookie: string, origin = APP_ORIGIN) {
  return appRequest(path, {
    method: "POST",
    cookie,
    headers: { Origin: origin, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
}

async function conversationWithExchange(uid: string, title = "Lisbon trip") {
  const db = await getDb();
  const conversation = await createConversation(db, { uid });
  await saveExchange(db, {
    uid,
    conversationId: conversation.id,
    kind: "submit",
    user: { id: randomUUID(), text: "Plan a trip to Lisbon", sentAt: new Date() },
    reply: {
      id: randomUUID(),
      parts: [{ type: "text", text: "Start at **Belém**." }],
      content: "Start at **Belém**.",
      status: "completed",
      model: "test-model",
      inputTokens: 3,
      outputTokens: 4,
    },
    usageDay: new Date().toISOString().slice(0, 10),
    title,
  });
  return conversation.id;
}

describe("/nuvara (layout)", () => {
  it("sends a signed-out visitor to login", async () => {
    const response = await respond(layoutLoader, appRequest("/nuvara"));
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/login?redirectTo=%2Fnuvara");
  });

  it("gives the conversation list, the role's models and quota, instructions and tool names", async () => {
    const { account, cookie } = await signedIn("tiny");
    await conversationWithExchange(account.uid);
    const data = await (await respond(layoutLoader, appRequest("/nuvara", { cookie }))).json();
    expect(data.conversations).toEqual([
      {
        id: expect.any(String),
        title: "Lisbon trip",
        updatedAt: expect.any(String),
        pinned: false,
        archived: false,
        folderId: null,
        projectId: null,
      },
    ]);
    expect(data.models).toEqual([
      { id: "test-model", label: "test-model", demo: false, vision: false },
      { id: "premium-model", label: "premium-model", demo: false, vision: false },
    ]);
    expect(data.quota).toMatchObject({ limit: 3, remaining: 3 });
    // The composer checks files against these before uploading (the server checks again).
    expect(data.attachmentLimits).toEqual({
      maxFileBytes: 20 * 1024 * 1024,
      perMessage: 10,
      storageBytes: 500 * 1024 * 1024,
    });
    expect(data.toolNames).toEqual({
      calculator: "Calculator",
      current_datetime: "Current date and time",
      convert_units: "Unit converter",
    });
    expect(JSON.stringify(data)).not.toContain(model.url); // the provider's address stays on the server

    const plain = await signedIn();
    const limited = await (await respond(layoutLoader, appRequest("/nuvara", { cookie: plain.cookie }))).json();
    expect(limited.models.map((option: { id: string }) => option.id)).toEqual(["test-model"]);
    expect(limited.quota).toMatchObject({ limit: 20, remaining: 20 });
  });

  it("searches with ?q= over titles and message text", async () => {
    const { account, cookie } = await signedIn();
    await conversationWithExchange(account.uid, "Trip");
    const hit = await (await respond(layoutLoader, appRequest("/nuvara?q=bel%C3%A9m", { cookie }))).json();
    expect(hit.conversations.map((c: { title: string }) => c.title)).toEqual(["Trip"]);
    const miss = await (await respond(layoutLoader, appRequest("/nuvara?q=paris", { cookie }))).json();
    expect(miss.conversations).toEqual([]);
  });

  it("a search that passes the database's deadline answers 503 with the page's message, not 500", async () => {
    const { account, cookie } = await signedIn();
    await conversationWithExchange(account.uid, "Trip");
    // Signed in and read once: what the search needs besides PostgreSQL is at hand.
    expect((await respond(layoutLoader, appRequest("/nuvara", { cookie }))).status).toBe(200);
    // Every answer of PostgreSQL now comes after the pool's query deadline (5 s, app/db/client.server.ts).
    await setLatency("postgres", 6_000);
    try {
      const response = await respond(layoutLoader, appRequest("/nuvara?q=bel%C3%A9m", { cookie }));
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        error: "Your conversations can't be reached right now. Please try again shortly.",
      });
    } finally {
      await healAll();
    }
    const found = await (await respond(layoutLoader, appRequest("/nuvara?q=bel%C3%A9m", { cookie }))).json();
    expect(found.conversations.map((c: { title: string }) => c.title)).toEqual(["Trip"]);
  });

  it("saves custom instructions, refusing overly long ones and other sites", async () => {
    const { account, cookie } = await signedIn();
    const tooLong = await respond(
      layoutAction,
      form("/nuvara", { intent: "instructions", instructions: "x".repeat(2_001) }, cookie),
    );
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error).toMatch(/2,000 characters or fewer/);
    const forged = await respond(
      layoutAction,
      form("/nuvara", { intent: "instructions", instructions: "evil" }, cookie, "https://evil.example"),
    );
    expect(forged.status).toBe(403);
    const saved = await respond(
      layoutAction,
      form("/nuvara", { intent: "instructions", instructions: "Reply in Spanish." }, cookie),
    );
    expect(await saved.json()).toEqual({ ok: true });
    expect(await getCustomInstructions(await getDb(), account.uid)).toBe("Reply in Spanish.");
  });
});

describe("/nuvara/<id>", () => {
  it("loads the owner's transcript; another user, a missing or malformed id get 404", async () => {
    const { account, cookie } = await signedIn();
    const id = await conversationWithExchange(account.uid);
    const data = await (
      await respond(conversationLoader, appRequest(`/nuvara/${id}`, { cookie }), { conversationId: id })
    ).json();
    expect(data.conversation).toMatchObject({
      id,
      title: "Lisbon trip",
      model: "test-model",
      customInstructions: null,
      hasToolInstructions: false,
    });
    expect(data.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    expect(data.messages[1]).toMatchObject({
      parts: [{ type: "text", text: "Start at **Belém**." }],
      metadata: { model: "test-model", status: "completed" },
    });

    const other = await signedIn();
    for (const conversationId of [id, randomUUID(), "not-a-uuid", "../../etc"]) {
      const response = await respond(
        conversationLoader,
        appRequest(`/nuvara/${conversationId}`, { cookie: other.cookie }),
        { conversationId },
      );
      expect(response.status, conversationId).toBe(404);
      expect(await response.json()).toEqual({ error: "This conversation doesn't exist." });
    }
  });

  it("renames (validated), changes the model (allowed ones only) and deletes; others get 404", async () => {
    const { account, cookie } = await signedIn();
    const id = await conversationWithExchange(account.uid);
    const act = (fields: Record<string, string>, who = cookie, origin?: string) =>
      respond(conversationAction, form(`/nuvara/${id}`, fields, who, origin), { conversationId: id });

    const other = await signedIn();
    const attempts: Array<Record<string, string>> = [
      { intent: "rename", title: "Mine" },
      { intent: "delete" },
      { intent: "model", model: "test-model" },
      { intent: "nonsense" },
    ];
    for (const fields of attempts) {
      expect((await act(fields, other.cookie)).status, fields.intent).toBe(404);
    }
    expect((await act({ intent: "rename", title: "x" }, cookie, "https://evil.example")).status).toBe(403);

    const empty = await act({ intent: "rename", title: "   " });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "Please enter a title." });
    expect((await act({ intent: "rename", title: "y".repeat(121) })).status).toBe(400);
    expect(await (await act({ intent: "rename", title: "  New   name " })).json()).toEqual({ ok: true });

    const premium = await act({ intent: "model", model: "premium-model" });
    expect(premium.status).toBe(400);
    expect((await premium.json()).error).toBe('The model "premium-model" isn\'t available to you.');

    const loaded = await (
      await respond(conversationLoader, appRequest(`/nuvara/${id}`, { cookie }), { conversationId: id })
    ).json();
    expect(loaded.conversation.title).toBe("New name");

    expect(await (await act({ intent: "delete" })).json()).toEqual({ ok: true });
    expect(
      (await respond(conversationLoader, appRequest(`/nuvara/${id}`, { cookie }), { conversationId: id })).status,
    ).toBe(404);
  });

  it("exports the owner's conversation as a Markdown download; 404 for anyone else", async () => {
    const { account, cookie } = await signedIn();
    const id = await conversationWithExchange(account.uid);
    const response = await respond(exportLoader, appRequest(`/api/conversations/${id}/markdown`, { cookie }), {
      conversationId: id,
    });
    expect(response.headers.get("Content-Type")).toBe("text/markdown; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toBe(
      `attachment; filename="lisbon-trip.md"; filename*=UTF-8''lisbon-trip.md`,
    );
    const text = await response.text();
    expect(text).toMatch(/^# Lisbon trip\n/);
    expect(text).toContain("Plan a trip to Lisbon");
    expect(text).toContain("Start at **Belém**.");
    const other = await signedIn();
    expect(
      (
        await respond(exportLoader, appRequest(`/api/conversations/${id}/markdown`, { cookie: other.cookie }), {
          conversationId: id,
        })
      ).status,
    ).toBe(404);
  });
});

describe("the model registry", () => {
  const local = (env: Record<string, string> = {}) => parseConfig(env as NodeJS.ProcessEnv);

  it("local mode with nothing configured and no Ollama: the demo model, labelled as not an AI", async () => {
    const registry = await resolveModelRegistry(local(), "http://127.0.0.1:9/v1");
    expect(registry.source).toBe("demo");
    expect(registry.models).toEqual([{ id: DEMO_MODEL_ID, label: DEMO_MODEL_LABEL, demo: true, vision: true }]);
    expect(DEMO_MODEL_LABEL).toMatch(/not an AI/);
  });

  it("local mode with an Ollama answering: its models", async () => {
    const ollama = await startModelServer({ models: ["llama3.2:1b", "qwen2.5:0.5b"] });
    try {
      const registry = await resolveModelRegistry(local(), ollama.url);
      expect(registry.source).toBe("ollama");
      expect(registry.models.map((option) => option.id)).toEqual(["llama3.2:1b", "qwen2.5:0.5b"]);
    } finally {
      await ollama.close();
    }
  });

  it("a configured endpoint: LLM_MODELS in order, or what the endpoint lists when it is empty", async () => {
    const configured = await resolveModelRegistry(local({ LLM_BASE_URL: model.url, LLM_MODELS: "b, a" }));
    expect(configured.models.map((option) => option.id)).toEqual(["b", "a"]);
    const listed = await resolveModelRegistry(local({ LLM_BASE_URL: model.url }));
    expect(listed.models.map((option) => option.id)).toEqual(["test-model", "premium-model"]);
  });

  it("the demo model answers through the chat endpoint, marked as a demo", async () => {
    delete process.env.LLM_BASE_URL;
    delete process.env.LLM_MODELS;
    delete process.env.LLM_ROLE_MODELS;
    resetConfig();
    try {
      const { cookie } = await signedIn();
      const chunks = await readChunks(await postChat(firstMessage("hello", DEMO_MODEL_ID), { cookie }));
      expect(chunks.find((chunk) => chunk.type === "start")).toMatchObject({
        messageMetadata: { model: DEMO_MODEL_ID, demo: true },
      });
      const text = chunks.flatMap((chunk) => (chunk.type === "text-delta" ? [chunk.delta] : [])).join("");
      expect(text).toContain("not an AI");
      expect(text).toContain("LLM_BASE_URL");
      expect(dataOf(chunks, "saved")).toMatchObject({ status: "completed" });
    } finally {
      Object.assign(process.env, ENV, { LLM_BASE_URL: model.url });
      resetConfig();
    }
  });
});
