import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { estimateTextTokens } from "~/budgets/prompt-estimate";
import { messages, usageDaily } from "~/db/schema";
import { loader as layoutLoader } from "~/routes/nuvara";
import { admin, appRequest, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { startModelServer, type ModelServer } from "../support/model-server";
import { respond } from "./admin-support";
import { dataOf, firstMessage, messagesToday, postChat, readChunks, replyText } from "./chat-support";

/**
 * Budgets through the real chat endpoint (docs/decisions/072): what the model
 * is asked for (max_tokens), what is counted, what the user is told, and the
 * fallback model once a budget is spent. The scripted model counts one token a word.
 */
const ENV = {
  LLM_MODELS: "test-model,cheap-model",
  LLM_MODEL_NAMES: "cheap-model=Cheap model",
  LLM_MODEL_PRICES: "test-model=2/10",
  LLM_MAX_OUTPUT_TOKENS: "100",
  BUDGET_DAILY_TOKENS: "tight=1200;fallback=1200",
  BUDGET_MONTHLY_USD: "pricey=5",
  BUDGET_FALLBACK_MODEL: "fallback=cheap-model",
  PLANS: '[{"name":"Pro","role":"pro","price":"$20 a month"}]',
};

const firebase = admin();
let model: ModelServer;
let restoreEnv: () => void;

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

async function signedIn(role: string) {
  const account = await createAccount(firebase, { role });
  return { uid: account.uid, cookie: await sessionCookieFor(account) };
}

function chatCalls() {
  return model.requests.filter((request) => request.path === "/v1/chat/completions");
}

const LONG = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ");

async function send(cookie: string, text = "Tell me a long story", modelId = "test-model") {
  model.enqueue({ type: "text", text: LONG });
  const response = await postChat(firstMessage(text, modelId), { cookie });
  if (response.status !== 200)
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  const chunks = await readChunks(response);
  return { status: 200, chunks, text: replyText(chunks), saved: dataOf<{ budget?: unknown }>(chunks, "saved") };
}

async function tokensToday(uid: string) {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(usageDaily)
    .where(and(eq(usageDaily.uid, uid), eq(usageDaily.day, new Date().toISOString().slice(0, 10))));
  return row ? row.inputTokens + row.outputTokens : 0;
}

describe("token budgets", () => {
  it("caps each reply by what is left, counts what it used, and refuses once spent without asking the model", async () => {
    const { uid, cookie } = await signedIn("tight");
    const first = await send(cookie);
    expect(first.status).toBe(200);
    // Cut at LLM_MAX_OUTPUT_TOKENS: the model was asked for at most 100 tokens.
    expect(chatCalls()[0].body?.max_tokens).toBe(100);
    expect(first.text!.split(/\s+/).filter(Boolean)).toHaveLength(100);
    expect(first.saved?.budget).toMatchObject({ kind: "dailyTokens", limit: 1200 });

    let refused: Awaited<ReturnType<typeof send>> | undefined;
    for (let i = 0; i < 30 && !refused; i += 1) {
      const next = await send(cookie);
      if (next.status !== 200) refused = next;
      // Never more than what is left after the prompt.
      else expect(chatCalls().at(-1)?.body?.max_tokens).toBeLessThanOrEqual(100);
    }
    expect(refused?.status).toBe(429);
    expect(String(refused?.body?.error)).toMatch(/budget/);
    const calls = chatCalls().length;
    const messagesBefore = await messagesToday(uid);
    // Spent, held to the budget: never more than 1,200 tokens (the estimate is above the real prompt).
    const used = await tokensToday(uid);
    expect(used).toBeLessThanOrEqual(1200);

    const again = await send(cookie);
    expect(again.status).toBe(429);
    expect(chatCalls()).toHaveLength(calls); // the model was not asked
    expect(await messagesToday(uid)).toBe(messagesBefore); // the refused message is not counted either

    // The composer shows it: a spent budget blocks sending, with the way to more.
    const page = (await (await respond(layoutLoader, appRequest("/nuvara", { cookie }))).json()) as {
      quota: { budget: { spent: boolean; left: number; kind: string } | null; upgradeUrl: string | null };
    };
    expect(page.quota.budget).toMatchObject({ kind: "dailyTokens" });
    expect(page.quota.budget!.left).toBeLessThan(1200 - used + 1);
    expect(page.quota.upgradeUrl).toBe("/pricing");
  });

  it("once spent, a role with a fallback model is answered by it instead of refused", async () => {
    const { uid, cookie } = await signedIn("fallback");
    for (let i = 0; i < 30; i += 1) {
      const sent = await send(cookie);
      expect(sent.status).toBe(200);
      if (chatCalls().at(-1)?.body?.model === "cheap-model") break;
    }
    const last = chatCalls().at(-1)!;
    expect(last.body?.model).toBe("cheap-model");
    // Not budgeted: the fallback's replies are not cut by the spent budget.
    expect(last.body?.max_tokens).toBeUndefined();
    const db = await getDb();
    const stored = await db.execute<{ model: string }>(
      sql`select m.model from ${messages} m join conversations c on c.id = m.conversation_id where c.uid = ${uid} and m.role = 'assistant' order by m.created_at desc limit 1`,
    );
    expect(stored.rows[0].model).toBe("cheap-model");

    const page = (await (await respond(layoutLoader, appRequest("/nuvara", { cookie }))).json()) as {
      quota: { budget: { spent: boolean; fallback?: string } };
    };
    expect(page.quota.budget).toMatchObject({ spent: true, fallback: "Cheap model" });
  });

  it("roles without budgets are not capped", async () => {
    const { cookie } = await signedIn("");
    const sent = await send(cookie);
    expect(sent.status).toBe(200);
    expect(chatCalls()[0].body?.max_tokens).toBeUndefined();
    expect(sent.text!.split(/\s+/).filter(Boolean)).toHaveLength(300);
  });
});

describe("money budgets", () => {
  it("prices each reply at LLM_MODEL_PRICES and counts it against the month", async () => {
    const { uid, cookie } = await signedIn("pricey");
    const sent = await send(cookie, "Price this");
    expect(sent.status).toBe(200);
    const db = await getDb();
    const [reply] = await db
      .select()
      .from(messages)
      .where(eq(messages.id, (sent.saved as unknown as { replyId: string }).replyId));
    // $2 and $10 per million tokens: micro-dollars = 2 × input + 10 × output.
    expect(reply.costMicroUsd).toBe(2 * reply.inputTokens! + 10 * reply.outputTokens!);
    expect(reply.costMicroUsd).toBeGreaterThan(0);
    const [day] = await db.select().from(usageDaily).where(eq(usageDaily.uid, uid));
    expect(day.costMicroUsd).toBe(reply.costMicroUsd);
    expect(sent.saved?.budget).toMatchObject({
      kind: "monthlyMicroUsd",
      limit: 5_000_000,
      left: 5_000_000 - reply.costMicroUsd,
    });
  });

  it("a spent money budget is refused with what it was and when it resets", async () => {
    const { uid, cookie } = await signedIn("pricey");
    const db = await getDb();
    await db.insert(usageDaily).values({ uid, day: new Date().toISOString().slice(0, 10), costMicroUsd: 5_000_000 });
    const sent = await send(cookie);
    expect(sent.status).toBe(429);
    expect(sent.body?.error).toMatch(/^You've used this month's budget of \$5\.00\. It resets on 1 /);
    expect(sent.body?.budget).toMatchObject({ spent: true, kind: "monthlyMicroUsd" });
    expect(chatCalls()).toHaveLength(0);
  });
});

describe("usage the provider reports", () => {
  /** One reply whose usage the scripted model reports as given; the saved confirmation and the stored reply. */
  async function replyReporting(cookie: string, usage: Record<string, number>) {
    const text = "Here is a short answer for you.";
    model.enqueue({ type: "text", text, usage });
    const response = await postChat(firstMessage("Charge me what you like"), { cookie });
    expect(response.status).toBe(200);
    const chunks = await readChunks(response);
    const saved = dataOf<{ replyId: string; budget?: { limit: number; left: number } | null }>(chunks, "saved");
    const db = await getDb();
    const [reply] = saved ? await db.select().from(messages).where(eq(messages.id, saved.replyId)) : [];
    return { text: replyText(chunks), saved, reply };
  }

  it("a negative count gives no budget back: the reply is charged the app's estimate", async () => {
    const { uid, cookie } = await signedIn("tight");
    const { saved, reply } = await replyReporting(cookie, {
      prompt_tokens: -1_000_000,
      completion_tokens: 7,
      total_tokens: -999_993,
    });
    expect(saved?.budget?.limit).toBe(1200);
    expect(saved!.budget!.left).toBeLessThan(1200);
    expect(reply.inputTokens).toBeGreaterThan(0);
    expect(await tokensToday(uid)).toBe(reply.inputTokens! + reply.outputTokens!);

    // The dashboard and the composer read the same: less left than before, never more.
    const page = (await (await respond(layoutLoader, appRequest("/nuvara", { cookie }))).json()) as {
      quota: { budget: { left: number } };
    };
    expect(page.quota.budget.left).toBe(1200 - (reply.inputTokens! + reply.outputTokens!));
  });

  it("an absurd count (1e308) leaves the reply stored, charged the app's estimate, budgeted or not", async () => {
    for (const role of ["tight", ""]) {
      const { uid, cookie } = await signedIn(role);
      const { text, saved, reply } = await replyReporting(cookie, {
        prompt_tokens: 1e308,
        completion_tokens: 1e308,
        total_tokens: 1e308,
      });
      expect(saved, role).toBeDefined();
      expect(reply).toMatchObject({ content: text, status: "completed" });
      // The estimate: about four characters a token for the reply, the prompt's estimate for what was sent.
      expect(reply.outputTokens).toBe(estimateTextTokens(text));
      expect(reply.inputTokens).toBeGreaterThan(0);
      expect(reply.inputTokens).toBeLessThan(1200);
      expect(await tokensToday(uid)).toBe(reply.inputTokens! + reply.outputTokens!);
    }
  });
});
