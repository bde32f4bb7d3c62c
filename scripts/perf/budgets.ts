import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { freshDatabase, machineLine, option, percentile, startAppUnderTest, writeBenchmarks } from "./app-under-test";
import { firstTextMs } from "./first-token";

/**
 * `npm run bench -- --budgets`: what the budget check costs the first token
 * (docs/decisions/072; target ≤ 2 ms). One instance on a fresh database on the PostgreSQL
 * server (or embedded PGlite with `--database-url ""`), the scripted model answering at
 * once. Two users chat in conversations of their own, alternately: one whose role has
 * token and money budgets (every reply holds budget before the model is asked and settles
 * it after), one whose role has none (today's path). Each message is timed from the
 * request to the first text chunk; overhead = median with budgets − median without.
 *
 *   npm run bench -- --budgets [--messages 150] [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
const serverDatabaseUrl = option("database-url", "postgresql://postgres@127.0.0.1:5432/test");
const messageCount = Number(option("messages", "150"));
const MODEL = "bench-model";

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const fixed = (value: number, digits = 1) => value.toFixed(digits);

export async function benchBudgets(): Promise<void> {
  console.log(`Budgets: ${messageCount} messages with budgets and ${messageCount} without…`);
  const database = serverDatabaseUrl ? await freshDatabase(serverDatabaseUrl, "budgets") : undefined;
  const app = await startAppUnderTest({
    name: "budgets",
    models: [MODEL],
    databaseUrl: database?.url,
    logFile: path.join(os.tmpdir(), `nuvara-bench-budgets-${process.pid}.log`),
    env: {
      LOG_LEVEL: "warn",
      CHAT_RATE_LIMIT_PER_MINUTE: "10000",
      QUOTA_DAILY_MESSAGES: "*=unlimited",
      // Large enough never to run out: the cost of checking, not of refusing, is measured.
      BUDGET_DAILY_TOKENS: "budgeted=1000000000",
      BUDGET_MONTHLY_TOKENS: "budgeted=1000000000",
      BUDGET_DAILY_USD: "budgeted=100000",
      BUDGET_MONTHLY_USD: "budgeted=100000",
      LLM_MODEL_PRICES: `${MODEL}=2.5/10`,
    },
  });
  try {
    const budgeted = await app.signIn("budgeted", "budget");
    const free = await app.signIn("premium", "nobudget");
    const message = (text: string) => ({ id: randomUUID(), role: "user", parts: [{ type: "text", text }] });
    const withBudget = randomUUID();
    const without = randomUUID();
    await firstTextMs(app.baseUrl, budgeted.cookie, {
      conversationId: withBudget,
      create: true,
      message: message("Hello."),
      model: MODEL,
    });
    await firstTextMs(app.baseUrl, free.cookie, {
      conversationId: without,
      create: true,
      message: message("Hello."),
      model: MODEL,
    });
    const timed = { with: [] as number[], without: [] as number[] };
    for (let i = 0; i < messageCount; i += 1) {
      const text = `Tell me about measurement ${i * 7}, briefly.`;
      timed.with.push(
        await firstTextMs(app.baseUrl, budgeted.cookie, {
          conversationId: withBudget,
          message: message(text),
          model: MODEL,
        }),
      );
      timed.without.push(
        await firstTextMs(app.baseUrl, free.cookie, { conversationId: without, message: message(text), model: MODEL }),
      );
    }
    const overhead = median(timed.with) - median(timed.without);
    const store = database ? "the PostgreSQL server (a fresh database)" : "embedded PGlite";
    const p95 = (values: number[]) =>
      fixed(
        percentile(
          [...values].sort((a, b) => a - b),
          95,
        ),
      );
    const report = [
      "## Budgets",
      "",
      `\`npm run bench -- --budgets\` on ${new Date().toISOString().slice(0, 10)}, ${machineLine()}, one instance on ${store}, ` +
        "the scripted model answering at once; the two users' messages alternate.",
      "",
      "| Figure | Value |",
      "|---|---|",
      `| First text chunk, role with day and month budgets in tokens and dollars (median of ${messageCount}) | ${fixed(median(timed.with))} ms (p95 ${p95(timed.with)}) |`,
      `| First text chunk, role without budgets (median of ${messageCount}) | ${fixed(median(timed.without))} ms (p95 ${p95(timed.without)}) |`,
      `| Budget check's overhead on the first token (target ≤ 2 ms) | ${fixed(overhead, 2)} ms |`,
      "",
    ].join("\n");
    console.log(report);
    if (!process.argv.includes("--no-write")) writeBenchmarks("budgets", report);
  } finally {
    await app.stop();
    await database?.drop();
  }
}
