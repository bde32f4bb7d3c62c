import os from "node:os";
import path from "node:path";
import {
  chatBody,
  freshDatabase,
  isAppToken,
  isModelToken,
  machineLine,
  option,
  percentile,
  readStream,
  startAppUnderTest,
  writeBenchmarks,
} from "./app-under-test";

/**
 * `npm run bench -- --api`: the OpenAI-compatible API's cost (docs/api.md;
 * target: its first-token overhead ≤ the chat's and ≤ 10 ms). One instance on
 * a fresh database on the PostgreSQL server (or embedded PGlite with
 * `--database-url ""`), the scripted model answering at once. Alternately, N
 * times each: a streamed reply's first token straight from the model server,
 * through POST /v1/chat/completions with a key, and through the chat's POST
 * /api/chat with a session (a new conversation, as the chat's own benchmark);
 * overhead = the median through the app − the median straight. Then the
 * throughput of non-streaming calls: C callers, each calling again as soon as
 * answered, for S seconds, through the API and straight to the model server.
 *
 *   npm run bench -- --api [--calls 50] [--connections 10] [--seconds 10]
 *                          [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
const serverDatabaseUrl = option("database-url", "postgresql://postgres@127.0.0.1:5432/test");
const calls = Number(option("calls", "50"));
const connections = Number(option("connections", "10"));
const seconds = Number(option("seconds", "10"));
const MODEL = "bench-model";

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => percentile(sorted(values), 50);
const p95 = (values: number[]) => percentile(sorted(values), 95);
const ms = (value: number) => `${value.toFixed(1)} ms`;

const completion = (stream: boolean) =>
  JSON.stringify({ model: MODEL, stream, messages: [{ role: "user", content: "hello there" }] });

export async function benchApi(): Promise<void> {
  console.log(
    `API: ${calls} streamed first tokens each way, then ${seconds} s of non-streaming calls at ${connections}…`,
  );
  const database = serverDatabaseUrl ? await freshDatabase(serverDatabaseUrl, "api") : undefined;
  const app = await startAppUnderTest({
    name: "api",
    models: [MODEL],
    databaseUrl: database?.url,
    logFile: path.join(os.tmpdir(), `nuvara-bench-api-${process.pid}.log`),
    env: {
      LOG_LEVEL: "warn",
      CHAT_RATE_LIMIT_PER_MINUTE: "10000",
      CHAT_RATE_LIMIT_PER_ADDRESS: "100000",
      QUOTA_DAILY_MESSAGES: "*=unlimited",
    },
  });
  try {
    const { baseUrl, model } = app;
    const user = await app.signIn("premium", "api");
    const secret = await createKey(baseUrl, user.cookie);
    const apiHeaders = { "Content-Type": "application/json", Authorization: `Bearer ${secret}` };
    const chatHeaders = { "Content-Type": "application/json", Origin: baseUrl, cookie: user.cookie };
    const firstToken = {
      direct: async () => {
        const started = performance.now();
        const response = await fetch(`${model.url}/chat/completions`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: completion(true),
        });
        return (await readStream(response, isModelToken, started)).firstTokenMs;
      },
      api: async () => {
        const started = performance.now();
        const response = await fetch(`${baseUrl}/v1/chat/completions`, {
          method: "POST",
          headers: apiHeaders,
          body: completion(true),
        });
        return (await readStream(response, isModelToken, started)).firstTokenMs;
      },
      chat: async () => {
        const started = performance.now();
        const response = await fetch(`${baseUrl}/api/chat`, {
          method: "POST",
          headers: chatHeaders,
          body: chatBody(MODEL, "hello there"),
        });
        return (await readStream(response, isAppToken, started)).firstTokenMs;
      },
    };
    // Warm each path (module loading, connections, caches) before timing it.
    for (let i = 0; i < 5; i++) for (const path of Object.values(firstToken)) await path();
    const timed = { direct: [] as number[], api: [] as number[], chat: [] as number[] };
    for (let i = 0; i < calls; i++) {
      timed.direct.push(await firstToken.direct());
      timed.api.push(await firstToken.api());
      timed.chat.push(await firstToken.chat());
    }
    const load = os.loadavg()[0];
    const throughput = {
      api: await saturate(`${baseUrl}/v1/chat/completions`, apiHeaders),
      direct: await saturate(`${model.url}/chat/completions`, { "Content-Type": "application/json" }),
    };
    const apiOverhead = median(timed.api) - median(timed.direct);
    const chatOverhead = median(timed.chat) - median(timed.direct);
    const store = database ? "the PostgreSQL server (a fresh database)" : "embedded PGlite";
    const report = [
      "## OpenAI-compatible API",
      "",
      `\`npm run bench -- --api\` on ${new Date().toISOString().slice(0, 10)}, ${machineLine()}, one instance on ${store}, ` +
        `the scripted model answering at once; load average ${load.toFixed(1)} when the timing ended (the machine is shared with other work: ` +
        "compare rows within this run).",
      "",
      `First token of a streamed reply, median of ${calls} each (the three alternate): straight from the model server, through ` +
        "POST /v1/chat/completions with a key, and through the chat's POST /api/chat (a new conversation, as in the chat's own figures).",
      "",
      "| path | first token, median | p95 | overhead over the model's own |",
      "|---|---|---|---|",
      `| model server, direct | ${ms(median(timed.direct))} | ${ms(p95(timed.direct))} | — |`,
      `| /v1/chat/completions (target ≤ the chat's and ≤ 10 ms) | ${ms(median(timed.api))} | ${ms(p95(timed.api))} | ${ms(apiOverhead)} |`,
      `| /api/chat | ${ms(median(timed.chat))} | ${ms(p95(timed.chat))} | ${ms(chatOverhead)} |`,
      "",
      `Non-streaming calls, ${connections} callers each calling again as soon as answered, ${seconds} s:`,
      "",
      "| path | calls/s | p50 | p95 | failed |",
      "|---|---|---|---|---|",
      `| /v1/chat/completions | ${throughput.api.perSecond.toFixed(0)} | ${ms(throughput.api.p50)} | ${ms(throughput.api.p95)} | ${throughput.api.failed} |`,
      `| model server, direct | ${throughput.direct.perSecond.toFixed(0)} | ${ms(throughput.direct.p50)} | ${ms(throughput.direct.p95)} | ${throughput.direct.failed} |`,
      "",
    ].join("\n");
    console.log(report);
    if (!process.argv.includes("--no-write")) writeBenchmarks("api", report);
  } finally {
    await app.stop();
    await database?.drop();
  }
}

/** A key for the signed-in user, made through the dashboard's form as a user makes one. */
async function createKey(baseUrl: string, cookie: string): Promise<string> {
  const response = await fetch(`${baseUrl}/dashboard?_data=routes/dashboard`, {
    method: "POST",
    headers: { cookie, Origin: baseUrl, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ intent: "create-api-key", name: "bench", expiry: "never" }).toString(),
  });
  const body = (await response.json()) as { apiKey?: { created?: { secret: string } } };
  const secret = body.apiKey?.created?.secret;
  if (!secret) throw new Error(`Creating a key answered ${response.status}: ${JSON.stringify(body)}`);
  return secret;
}

/** Non-streaming calls from `connections` callers for `seconds`: calls a second, latency percentiles, failures. */
async function saturate(url: string, headers: Record<string, string>) {
  const until = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let failed = 0;
  const caller = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      const response = await fetch(url, { method: "POST", headers, body: completion(false) }).catch(() => undefined);
      const ok = response?.ok === true;
      await response?.arrayBuffer().catch(() => undefined);
      if (ok) latencies.push(performance.now() - started);
      else failed += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, caller));
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: latencies.length / elapsed, p50: median(latencies), p95: p95(latencies), failed };
}
