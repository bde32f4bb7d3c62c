import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csvField } from "~/data/admin-usage.server";
import { getDb } from "~/db/client.server";
import { saveExchange } from "~/data/messages.server";
import { apiKeys, limitRefusals, messages, stripeEvents, usageDaily } from "~/db/schema";
import { countKeyUsage, createApiKey } from "~/data/api-keys.server";
import { loader as usageLoader } from "~/routes/admin.usage";
import { loader as csvLoader } from "~/routes/admin.usage[.]csv";
import { admin, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { respond, get } from "./admin-support";
import { firstMessage, postChat, readChunks } from "./chat-support";
import { startModelServer, type ModelServer } from "../support/model-server";

/**
 * /admin/usage (docs/decisions/073): spend per plan, model and user from real
 * replies, refusals, and revenue from stored Stripe events; the CSV; admins only.
 * Each test run uses its own plan role, so figures are not mixed with other tests'.
 */
const firebase = admin();
let model: ModelServer;
let restoreEnv: () => void;
const plan = `plan${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  model = await startModelServer();
  restoreEnv = setAppEnv({
    LLM_BASE_URL: model.url,
    LLM_MODELS: "test-model",
    LLM_MODEL_PRICES: "test-model=1/2",
    PLANS: JSON.stringify([{ name: "Usage Plan", role: plan, price: "$9 a month" }]),
  });
});

afterAll(async () => {
  restoreEnv();
  await model.close();
  await firebase.close();
});

describe("/admin/usage", () => {
  it("shows spend per plan, model and user against the plan's revenue, and refusals; the CSV has the same", async () => {
    const user = await createAccount(firebase, { role: plan });
    const cookie = await sessionCookieFor(user);
    const sent = await postChat(firstMessage("Count my words please"), { cookie });
    expect(sent.status).toBe(200);
    await readChunks(sent);

    const db = await getDb();
    const today = new Date().toISOString().slice(0, 10);
    await db.insert(limitRefusals).values({ uid: user.uid, day: today, limit: "budget", count: 2 });
    await db.insert(stripeEvents).values({
      id: `evt_${randomUUID()}`,
      type: "invoice.paid",
      createdAt: new Date(),
      role: plan,
      amount: 900,
      currency: "usd",
      payload: {},
    });
    const [usage] = await db.select().from(usageDaily).where(eq(usageDaily.uid, user.uid));
    expect(usage.role).toBe(plan);
    expect(usage.costMicroUsd).toBe(usage.inputTokens + 2 * usage.outputTokens);

    const boss = await createAccount(firebase, { role: "admin", prefix: "admin" });
    const adminCookie = await sessionCookieFor(boss);
    const response = await respond(usageLoader, get("/admin/usage", adminCookie));
    expect(response.status).toBe(200);
    const data = (await response.json()) as {
      plans: Array<{
        role: string;
        users: number;
        messages: number;
        costMicroUsd: number;
        revenue: Array<{ amount: number; currency: string }>;
      }>;
      planNames: Record<string, string>;
      top: Array<{ uid: string; email: string | null }>;
      refusals: Array<{ limit: string; count: number }>;
      models: Array<{ model: string; replies: number }>;
    };
    expect(data.plans.find((row) => row.role === plan)).toMatchObject({
      users: 1,
      messages: 1,
      costMicroUsd: usage.costMicroUsd,
      revenue: [{ amount: 900, currency: "usd" }],
    });
    expect(data.planNames[plan]).toBe("Usage Plan");
    expect(data.models.find((row) => row.model === "test-model")?.replies).toBeGreaterThanOrEqual(1);
    expect(data.refusals.find((row) => row.limit === "budget")?.count).toBeGreaterThanOrEqual(2);

    const csv = await respond(csvLoader, get("/admin/usage.csv", adminCookie));
    expect(csv.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("Content-Disposition")).toMatch(
      /^attachment; filename="nuvara-usage-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const text = await csv.text();
    expect(text).toContain(
      `${plan},1,1,${usage.inputTokens + usage.outputTokens},${(usage.costMicroUsd / 1e6).toFixed(6)},9.00 usd`,
    );
    expect(text.split("\r\n")[0]).toBe("day,active_users,messages,tokens,cost_usd,refusals");
  });

  it("per model: the replies stored, their tokens and cost, as summed from the messages themselves", async () => {
    const db = await getDb();
    const uid = `usage-${randomUUID()}`;
    const models = [`model-a-${randomUUID().slice(0, 8)}`, `model-b-${randomUUID().slice(0, 8)}`];
    const today = new Date().toISOString().slice(0, 10);
    // Three replies of the first model, two of the second, one regenerated (a second version of a reply).
    const replies = [
      { model: models[0], inputTokens: 10, outputTokens: 20, costMicroUsd: 50 },
      { model: models[1], inputTokens: 7, outputTokens: 3, costMicroUsd: 13 },
      { model: models[0], inputTokens: 11, outputTokens: 21, costMicroUsd: 53 },
      { model: models[1], inputTokens: 8, outputTokens: 4, costMicroUsd: 16 },
    ];
    const conversationId = randomUUID();
    let userId = "";
    for (const [index, reply] of replies.entries()) {
      userId = randomUUID();
      const stored = await saveExchange(db, {
        uid,
        conversationId,
        kind: "submit",
        user: { id: userId, text: `Question ${index}`, sentAt: new Date() },
        reply: { id: randomUUID(), parts: [], content: `Answer ${index}`, status: "completed", ...reply },
        usageDay: today,
        title: "Models",
        ...(index === 0 ? { create: { systemPrompt: null, customInstructions: null, title: null } } : {}),
      });
      expect(stored).not.toBeNull();
    }
    const regenerated = { model: models[0], inputTokens: 12, outputTokens: 22, costMicroUsd: 56 };
    expect(
      await saveExchange(db, {
        uid,
        conversationId,
        kind: "regenerate",
        user: { id: userId, text: "Question 3", sentAt: new Date() },
        reply: { id: randomUUID(), parts: [], content: "Answer again", status: "stopped", ...regenerated },
        usageDay: today,
        title: "Models",
      }),
    ).not.toBeNull();

    const boss = await createAccount(firebase, { role: "admin", prefix: "admin" });
    const adminCookie = await sessionCookieFor(boss);
    const data = (await (await respond(usageLoader, get("/admin/usage", adminCookie))).json()) as {
      models: Array<{
        model: string;
        replies: number;
        inputTokens: number;
        outputTokens: number;
        costMicroUsd: number;
      }>;
    };
    const fromMessages = await db.execute<{
      model: string;
      replies: string;
      input: string;
      output: string;
      cost: string;
    }>(
      sql`select model, count(*) as replies, sum(input_tokens) as input, sum(output_tokens) as output, sum(cost_micro_usd) as cost
        from ${messages} where role = 'assistant' and model in (${models[0]}, ${models[1]}) group by model`,
    );
    const expected = fromMessages.rows.map((row) => ({
      model: row.model,
      replies: Number(row.replies),
      inputTokens: Number(row.input),
      outputTokens: Number(row.output),
      costMicroUsd: Number(row.cost),
    }));
    expect(expected).toHaveLength(2);
    expect(data.models.filter((row) => models.includes(row.model))).toEqual(
      // The page's order: cost, most first.
      expected.sort((a, b) => b.costMicroUsd - a.costMicroUsd),
    );
    expect(data.models.find((row) => row.model === models[0])).toEqual({
      model: models[0],
      replies: 3,
      inputTokens: 33,
      outputTokens: 63,
      costMicroUsd: 159,
    });

    const csv = await (await respond(csvLoader, get("/admin/usage.csv", adminCookie))).text();
    expect(csv).toContain(`\r\n${models[1]},2,15,7,0.000029\r\n`);
  });

  it("an email an account chose to look like a number-led formula reaches the CSV neutralised", async () => {
    // Priced high for this test only, so the account is among the top users whatever else ran today.
    const restorePrices = setAppEnv({ LLM_MODEL_PRICES: "test-model=100000/100000" });
    try {
      const attacker = await createAccount(firebase, { prefix: "-2+3+cmd|'-Ccalc.exe'!A0" });
      expect(attacker.email).toMatch(/^-2\+3\+cmd\|'-Ccalc\.exe'!A0-/);
      const cookie = await sessionCookieFor(attacker);
      for (const text of ["First message to be counted", "Second message to be counted"]) {
        const sent = await postChat(firstMessage(text), { cookie });
        expect(sent.status).toBe(200);
        await readChunks(sent);
      }

      const adminCookie = await sessionCookieFor(await createAccount(firebase, { role: "admin", prefix: "admin" }));
      const rows = (await (await respond(csvLoader, get("/admin/usage.csv", adminCookie))).text()).split("\r\n");
      const row = rows.find((line) => line.startsWith(`${attacker.uid},`));
      expect(row).toBeDefined();
      // The identity service keeps addresses in lower case.
      expect(row!.split(",")[1]).toBe(`'${attacker.email.toLowerCase()}`);
    } finally {
      restorePrices();
    }
  });

  it("lists the busiest API keys with owner, name and prefix, requests, tokens, cost and last use: at most 50, the CSV the same", async () => {
    const db = await getDb();
    const owner = await createAccount(firebase, { role: plan });
    const made = (await createApiKey(db, { uid: owner.uid, name: "nightly report", expiresAt: null })) as {
      key: { id: string; prefix: string };
    };
    // Far more than any other test's key spends, so it leads the list.
    await countKeyUsage(db, made.key.id, { inputTokens: 1_000, outputTokens: 234, costMicroUsd: 9_000_000_000 });
    await db
      .update(apiKeys)
      .set({ lastUsedAt: new Date("2026-12-01T10:00:00Z") })
      .where(eq(apiKeys.id, made.key.id));
    // More used keys than the page lists.
    await db.insert(apiKeys).values(
      Array.from({ length: 55 }, (_, at) => ({
        id: randomUUID(),
        uid: owner.uid,
        name: `bulk ${at}`,
        secretHash: randomUUID(),
        prefix: `nvk_bulk${String(at).padStart(4, "0")}`,
        requests: 1,
        costMicroUsd: 8_000_000_000 - at,
      })),
    );
    const boss = await createAccount(firebase, { role: "admin", prefix: "admin" });
    const adminCookie = await sessionCookieFor(boss);
    const data = (await (await respond(usageLoader, get("/admin/usage", adminCookie))).json()) as {
      keys: Array<Record<string, unknown>>;
      keysUsed: number;
    };
    expect(data.keys).toHaveLength(50);
    expect(data.keysUsed).toBeGreaterThanOrEqual(56);
    expect(data.keys[0]).toMatchObject({
      name: "nightly report",
      prefix: made.key.prefix,
      email: owner.email.toLowerCase(),
      requests: 1,
      tokens: 1_234,
      costMicroUsd: 9_000_000_000,
      lastUsedAt: "2026-12-01T10:00:00Z",
    });
    expect(data.keys[1]).toMatchObject({ name: "bulk 0" });
    const csv = await (await respond(csvLoader, get("/admin/usage.csv", adminCookie))).text();
    expect(csv).toContain("api_key_prefix,key_name,owner_uid,owner_email,requests,tokens,cost_usd,last_used");
    expect(csv).toContain(
      `${made.key.prefix},nightly report,${owner.uid},${owner.email.toLowerCase()},1,1234,9000.000000,2026-12-01T10:00:00Z`,
    );
    expect(csv.match(/^nvk_bulk/gm)).toHaveLength(49);
  });

  it("is for admins only, read fresh", async () => {
    const user = await createAccount(firebase, {});
    const cookie = await sessionCookieFor(user);
    expect((await respond(usageLoader, get("/admin/usage", cookie))).status).toBe(403);
    expect((await respond(csvLoader, get("/admin/usage.csv", cookie))).status).toBe(403);
  });

  it("CSV fields are quoted, and never run as a spreadsheet formula", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('say "hi", then go')).toBe('"say ""hi"", then go"');
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField("-12")).toBe("-12");
    expect(csvField("-0.5")).toBe("-0.5");
    expect(csvField("-2+3+cmd|' /C calc'!A0")).toBe("'-2+3+cmd|' /C calc'!A0");
  });
});
