import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FREE, NO_BUDGETS, type BudgetLimits } from "~/settings/budget-settings";
import { getBudgetStatus, holdBudget, type Hold } from "~/data/budgets.server";
import { refundMessage, reserveMessage, settleMessage } from "~/data/quotas.server";
import { openDatabase, type Db } from "~/db/client.server";
import { setAppEnv } from "../support/app-env";
import { testDatabases } from "../support/databases";

/**
 * Budget holds on each database the suite has (docs/decisions/072). "Two
 * instances" are two connection pools: everything that makes a budget exact
 * happens in PostgreSQL, so two pools race exactly as two servers do.
 */

async function usedTokens(db: Db, uid: string) {
  const result = await db.execute<{ tokens: string; usd: string }>(
    sql`select coalesce(sum(input_tokens + output_tokens), 0) as tokens, coalesce(sum(cost_micro_usd), 0) as usd from usage_daily where uid = ${uid}`,
  );
  return { tokens: Number(result.rows[0].tokens), microUsd: Number(result.rows[0].usd) };
}

/** One send as the chat endpoint makes it: claim the message, hold budget, and (if held) settle with `use` of the hold. */
async function send(
  db: Db,
  uid: string,
  limits: BudgetLimits,
  { prompt = 200, wanted = 1000, use = 1, price = FREE } = {},
) {
  const messageId = randomUUID();
  const reservation = await reserveMessage(db, uid, null, { messageId });
  const hold = await holdBudget(db, { uid, messageId, limits, price, promptTokens: prompt, maxOutputTokens: wanted });
  if (!hold.ok) {
    await refundMessage(db, reservation);
    return hold;
  }
  const output = Math.floor(hold.maxOutputTokens * use);
  await settleMessage(db, reservation, {
    inputTokens: prompt,
    outputTokens: output,
    costMicroUsd: Math.ceil(prompt * price.inputPerMillion + output * price.outputPerMillion),
  });
  return hold;
}

describe.each(testDatabases())("budgets on $name", ({ name, url }) => {
  let a: Db;
  let b: Db;
  let restoreEnv: () => void;
  beforeAll(async () => {
    restoreEnv = setAppEnv({});
    // Small pools: PGlite's socket server takes 16 connections in all, shared with the other test files.
    a = await openDatabase(url, { max: 4 });
    b = await openDatabase(url, { max: 4 });
  });
  afterAll(async () => {
    restoreEnv();
    await a.$client.end();
    await b.$client.end();
  });

  // PGlite's socket server runs every connection on one backend session: racing connections is the server's test.
  it.skipIf(name === "PGlite")(
    "50 concurrent replies from two instances never spend more than the budget",
    async () => {
      const uid = `budget-${randomUUID()}`;
      const limits = { ...NO_BUDGETS, dailyTokens: 10_000 };
      // Each reply uses all it held: the most adversarial settlement.
      const holds: Hold[] = await Promise.all(Array.from({ length: 50 }, (_, i) => send(i % 2 ? a : b, uid, limits)));
      const accepted = holds.filter((hold) => hold.ok);
      // 8 replies of 200 + 1000 tokens, then one of 200 + 200 (the rest of the budget), then none.
      expect(accepted).toHaveLength(9);
      expect(accepted.map((hold) => hold.ok && hold.maxOutputTokens).sort()).toEqual(
        [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 200].sort(),
      );
      expect((await usedTokens(a, uid)).tokens).toBe(10_000);
      const status = await getBudgetStatus(b, uid, "none");
      expect(status).toBeNull(); // the role "none" has no budgets configured in this test
    },
  );

  it("a reply that holds but uses less gives the rest back when it settles", async () => {
    const uid = `budget-${randomUUID()}`;
    const limits = { ...NO_BUDGETS, dailyTokens: 3_000 };
    const first = await send(a, uid, limits, { use: 0.1 }); // holds 1200, uses 300
    expect(first.ok && first.maxOutputTokens).toBe(1000);
    const second = await send(b, uid, limits, { use: 1 }); // 2700 left
    expect(second.ok && second.maxOutputTokens).toBe(1000);
    const third = await send(a, uid, limits); // 1500 left: 200 + 1000 again
    expect(third.ok && third.maxOutputTokens).toBe(1000);
    const fourth = await send(b, uid, limits); // 300 left: 100 of output is more than the minimum
    expect(fourth.ok && fourth.maxOutputTokens).toBe(100);
    const fifth = await send(a, uid, limits);
    expect(fifth.ok).toBe(false);
    expect((await usedTokens(a, uid)).tokens).toBe(3_000);
  });

  it("holds of replies in flight count until they settle; a dead reply's hold ends with its lease", async () => {
    const uid = `budget-${randomUUID()}`;
    const limits = { ...NO_BUDGETS, monthlyTokens: 2_000 };
    const messageId = randomUUID();
    await reserveMessage(a, uid, null, { messageId });
    const inFlight = await holdBudget(a, {
      uid,
      messageId,
      limits,
      price: FREE,
      promptTokens: 200,
      maxOutputTokens: 1000,
    });
    expect(inFlight.ok).toBe(true);
    // Another instance sees the hold: only 800 left.
    const other = await send(b, uid, limits, { use: 0 });
    expect(other.ok && other.maxOutputTokens).toBe(600);
    // Its server died: past the lease the hold no longer counts.
    await a.execute(
      sql`update quota_reservations set reserved_at = now() - interval '16 minutes' where uid = ${uid} and message_id = ${messageId}::uuid`,
    );
    const after = await send(b, uid, limits, { use: 0 });
    expect(after.ok && after.maxOutputTokens).toBe(1000);
  });

  it("a money budget caps the reply by its price, and counts what was spent", async () => {
    const uid = `budget-${randomUUID()}`;
    // $0.01 a day; $2 / $10 per million tokens: a 200-token prompt costs 400 µ$, each output token 10 µ$.
    const limits = { ...NO_BUDGETS, dailyMicroUsd: 10_000 };
    const price = { inputPerMillion: 2, outputPerMillion: 10 };
    const first = await send(a, uid, limits, { price, wanted: 500 });
    expect(first.ok && first.maxOutputTokens).toBe(500); // 400 + 5,000 µ$
    const second = await send(b, uid, limits, { price, wanted: 500 });
    expect(second.ok && second.maxOutputTokens).toBe(420); // (10,000 − 5,400 − 400) / 10
    expect(await usedTokens(a, uid)).toEqual({ tokens: 200 + 500 + 200 + 420, microUsd: 10_000 });
    const third = await send(a, uid, limits, { price });
    expect(third.ok).toBe(false);
    expect(third.status.spent).toBe(true);
  });

  it("a prompt larger than what is left is refused rather than started", async () => {
    const uid = `budget-${randomUUID()}`;
    const limits = { ...NO_BUDGETS, dailyTokens: 1_000 };
    const hold = await send(a, uid, limits, { prompt: 950 });
    expect(hold.ok).toBe(false);
    expect(hold.status.spent).toBe(false); // not spent, just not enough for this prompt
    expect((await usedTokens(a, uid)).tokens).toBe(0);
  });
});
