import { randomUUID } from "node:crypto";
import autocannon from "autocannon";
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
} from "./perf/app-under-test";
import { benchInstances } from "./perf/instances";
import { benchRuns } from "./perf/runs";
import { benchAttachments } from "./perf/attachments";
import { benchBudgets } from "./perf/budgets";
import { benchApi } from "./perf/api";
import { benchTools } from "./perf/tools";
import { benchStream } from "./perf/stream-markdown";
import { benchScale } from "./perf/scale";
import { benchImports } from "./perf/imports";
import { measureBrowserChat, type BrowserChatFigures } from "./perf/browser-chat";
import { heaviestPackages, pageWeights, type PageWeight } from "./perf/page-weight";

/**
 * `npm run bench`: builds if needed, starts the app in local mode on free
 * ports behind latency proxies, and measures pages (throughput and latency
 * percentiles at 1, 10 and 50 connections), with no added backend latency
 * and with `--backend-latency` ms per round trip to the Auth and Firestore
 * emulators (and 2 ms to PostgreSQL), plus every page's first-load
 * JavaScript (from the build's manifest) and, in Chromium, the time from
 * Enter to a reply's first word and the long tasks while a 1,000-word reply
 * streams. Prints a table and writes docs/benchmarks.md. Figures compare
 * within one run only.
 *
 *   npm run bench -- --instances N     (throughput with 1 and N instances; see scripts/perf/instances.ts)
 *   npm run bench -- --runs [--poll] [--replies 20] [--reopens 20] [--parallel 4] [--words 60] [--word-ms 20]
 *                                      (replies that survive, two instances: reattach latency from another
 *                                      instance, PostgreSQL writes per reply, replies lost when tabs close
 *                                      and reopen elsewhere, quota; --poll: the instances poll as behind a
 *                                      transaction pooler without a direct URL; see scripts/perf/runs.ts)
 *   npm run bench -- --attachments [--uploads 5] [--upload-mb 15] [--pdf-runs 3] [--messages 30] [--bombs 10] [--fair-runs 5]
 *                                      (files in the chat: upload MB/s, indexing a 200-page PDF, retrieval's
 *                                      first-token overhead, the server's memory around documents that inflate
 *                                      to 1 GiB, another account's upload while one account's slow PDFs are
 *                                      read; see scripts/perf/attachments.ts)
 *   npm run bench -- --stream [--words 1000] [--tokens-per-second 45]
 *                                      (long tasks while a 1,000-word Markdown reply streams, at 1× and 4× CPU
 *                                      slowdown, against targets; see scripts/perf/stream-markdown.ts)
 *   npm run bench -- --budgets [--messages 150]
 *                                      (the budget check's overhead on a reply's first token; see scripts/perf/budgets.ts)
 *   npm run bench -- --api [--calls 50] [--connections 10] [--seconds 10]
 *                                      (the OpenAI-compatible API's first-token overhead against the chat's, and
 *                                      non-streaming calls a second; see scripts/perf/api.ts)
 *   npm run bench -- --tools [--calls 30] [--tool-ms 20] [--reconnects 5]
 *                                      (the app's time around an MCP server's own time when the model calls its
 *                                      tool: pooled, on a new connection, and approved at once; see scripts/perf/tools.ts)
 *   npm run bench -- --scale [--requests 30] [--concurrent-requests 50] [--max-minutes 90]
 *                                      (how each page behaves as the work grows: a user with 100, 1,000 and 10,000
 *                                      chats in a deployment growing to 1,000,000 messages, p95 per page per stage
 *                                      against a target of ≤ 2× from first to last, and EXPLAIN of the slowest
 *                                      pages' statements; see scripts/perf/scale.ts)
 *   npm run bench -- --imports [--conversations 5000] [--pairs 4]
 *                                      (a ChatGPT export of 5,000 conversations imported: the upload read and
 *                                      checked, the job stored and run to its end, time and peak memory;
 *                                      see scripts/perf/imports.ts)
 *   npm run bench [-- --backend-latency 40] [--duration 5] [--connections 1,10,50]
 *                 [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
// `--instances N`: throughput with 1 and N remix-serve processes instead (scripts/perf/instances.ts).
if (process.argv.includes("--instances")) {
  await benchInstances(Number(option("instances", "2")));
  process.exit(0);
}
// `--runs`: replies that survive, with two instances (scripts/perf/runs.ts); exits 1 if a check failed.
if (process.argv.includes("--runs")) {
  const passed = await benchRuns();
  process.exit(passed ? 0 : 1);
}

// `--budgets`: the budget check's cost on the first token (scripts/perf/budgets.ts).
if (process.argv.includes("--budgets")) {
  await benchBudgets();
  process.exit(0);
}

// `--api`: the OpenAI-compatible API's overhead and throughput (scripts/perf/api.ts).
if (process.argv.includes("--api")) {
  await benchApi();
  process.exit(0);
}

// `--tools`: the app's time around an MCP server's when a tool is called (scripts/perf/tools.ts).
if (process.argv.includes("--tools")) {
  await benchTools();
  process.exit(0);
}

// `--stream`: long tasks while a long Markdown reply streams, at 1× and 4× CPU (scripts/perf/stream-markdown.ts); exits 1 if a target is missed.
if (process.argv.includes("--stream")) {
  const met = await benchStream();
  process.exit(met ? 0 : 1);
}

// `--scale`: pages as the data grows, on a scratch database (scripts/perf/scale.ts); exits 1 if a page misses its target.
if (process.argv.includes("--scale")) {
  const met = await benchScale();
  process.exit(met ? 0 : 1);
}

// `--imports`: a 5,000-conversation ChatGPT export imported (scripts/perf/imports.ts).
if (process.argv.includes("--imports")) {
  await benchImports();
  process.exit(0);
}

// `--attachments`: files in the chat (scripts/perf/attachments.ts).
if (process.argv.includes("--attachments")) {
  await benchAttachments();
  process.exit(0);
}

const backendLatency = Number(option("backend-latency", "40"));
const durationSeconds = Number(option("duration", "5"));
const connectionCounts = option("connections", "1,10,50").split(",").map(Number);
/** A PostgreSQL server to run on (a fresh database, dropped afterwards) instead of embedded PGlite. */
const serverDatabaseUrl = option("database-url", "");

interface Measurement {
  scenario: string;
  latency: number;
  connections: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

async function measure(url: string, connections: number, headers: Record<string, string>) {
  const times: number[] = [];
  let bad = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, connections, duration: durationSeconds, headers }, (error, done) =>
      error ? reject(error) : resolve(done),
    );
    instance.on("response", (_client, status, _bytes, responseTime) => {
      if (status >= 400) bad++;
      times.push(responseTime);
    });
  });
  times.sort((a, b) => a - b);
  return {
    rps: result.requests.average,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    errors: result.errors + result.timeouts + bad,
  };
}

async function main() {
  const database = serverDatabaseUrl ? await freshDatabase(serverDatabaseUrl, "bench") : undefined;
  const app = await startAppUnderTest({
    name: "bench",
    databaseUrl: database?.url,
    models: ["bench-model"],
    proxies: true,
    // One account sends 100+ messages a minute here: far past the abuse limit meant for people.
    env: { CHAT_RATE_LIMIT_PER_MINUTE: "10000" },
  });
  const { baseUrl, model } = app;
  const proxies = app.proxies!;
  try {
    const sessionCookie = async (role: string) => (await app.signIn(role)).cookie;
    const userCookie = await sessionCookie("");
    const adminCookie = await sessionCookie("admin");
    const premiumCookie = await sessionCookie("premium");
    const chatHeaders = (cookie: string) => ({ "Content-Type": "application/json", Origin: baseUrl, cookie });

    // A user with 50 conversations, made through the chat endpoint itself.
    for (let i = 0; i < 50; i++) {
      const response = await fetch(`${baseUrl}/api/chat`, {
        method: "POST",
        headers: chatHeaders(premiumCookie),
        body: chatBody("bench-model", `Conversation number ${i + 1}`),
      });
      await readStream(response, isAppToken, performance.now());
    }

    const scenarios: Array<{ name: string; path: string; cookie?: string }> = [
      { name: "GET / anonymous", path: "/" },
      { name: "GET / logged in", path: "/", cookie: userCookie },
      { name: "GET / admin", path: "/", cookie: adminCookie },
      { name: "GET /admin/messages admin", path: "/admin/messages", cookie: adminCookie },
      { name: "GET /nuvara, 50 conversations", path: "/nuvara", cookie: premiumCookie },
    ];

    const results: Measurement[] = [];
    for (const latency of [0, backendLatency]) {
      // Half the round trip in each direction.
      proxies.identity.latencyMs = latency / 2;
      proxies.firestore.latencyMs = latency / 2;
      proxies.postgres.latencyMs = latency > 0 ? 1 : 0;
      for (const scenario of scenarios) {
        for (const connections of connectionCounts) {
          const headers: Record<string, string> = scenario.cookie ? { cookie: scenario.cookie } : {};
          await measure(baseUrl + scenario.path, Math.min(connections, 5), headers); // warm up
          const m = await measure(baseUrl + scenario.path, connections, headers);
          results.push({ scenario: scenario.name, latency, connections, ...m });
          console.log(
            `${scenario.name.padEnd(28)} +${String(latency).padStart(2)} ms  c=${String(connections).padStart(2)}  ` +
              `${m.rps.toFixed(0).padStart(6)} req/s  p50 ${m.p50.toFixed(1)}  p95 ${m.p95.toFixed(1)}  p99 ${m.p99.toFixed(1)} ms  errors ${m.errors}`,
          );
        }
      }
    }

    // A follow-up message goes to one conversation that grows as the run goes on.
    const followUp = randomUUID();
    const first = await fetch(`${baseUrl}/api/chat`, {
      method: "POST",
      headers: chatHeaders(adminCookie),
      body: chatBody("bench-model", "the conversation the follow-ups go to", { conversationId: followUp }),
    });
    await readStream(first, isAppToken, performance.now());
    const chatFigures: ChatFigures[] = [];
    const longText = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    for (const latency of [0, backendLatency]) {
      proxies.identity.latencyMs = latency / 2;
      proxies.firestore.latencyMs = latency / 2;
      proxies.postgres.latencyMs = latency > 0 ? 1 : 0;
      const direct: number[] = [];
      const viaApp: number[] = [];
      const followUps: number[] = [];
      let rate = 0;
      for (let i = 0; i < 15; i++) {
        let started = performance.now();
        const straight = await fetch(`${model.url}/chat/completions`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            model: "bench-model",
            stream: true,
            messages: [{ role: "user", content: "hello there" }],
          }),
        });
        direct.push((await readStream(straight, isModelToken, started)).firstTokenMs);
        started = performance.now();
        const app = await fetch(`${baseUrl}/api/chat`, {
          method: "POST",
          headers: chatHeaders(adminCookie),
          body: chatBody("bench-model", "hello there"),
        });
        viaApp.push((await readStream(app, isAppToken, started)).firstTokenMs);
        started = performance.now();
        const next = await fetch(`${baseUrl}/api/chat`, {
          method: "POST",
          headers: chatHeaders(adminCookie),
          body: chatBody("bench-model", "hello again", { conversationId: followUp, create: false }),
        });
        followUps.push((await readStream(next, isAppToken, started)).firstTokenMs);
      }
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const app = await fetch(`${baseUrl}/api/chat`, {
          method: "POST",
          headers: chatHeaders(adminCookie),
          body: chatBody("bench-model", longText),
        });
        const { tokens, totalMs } = await readStream(app, isAppToken, started);
        rate = Math.max(rate, tokens / (totalMs / 1000));
      }
      const figures = {
        latency,
        directFirstTokenMs: median(direct),
        appFirstTokenMs: median(viaApp),
        followUpFirstTokenMs: median(followUps),
        tokensPerSecond: rate,
      };
      chatFigures.push(figures);
      console.log(
        `chat +${latency} ms: first token ${figures.directFirstTokenMs.toFixed(1)} ms direct, ${figures.appFirstTokenMs.toFixed(1)} ms through the app (new conversation), ${figures.followUpFirstTokenMs.toFixed(1)} ms (follow-up); ${rate.toFixed(0)} tokens/s`,
      );
    }

    proxies.identity.latencyMs = 0;
    proxies.firestore.latencyMs = 0;
    proxies.postgres.latencyMs = 0;
    const rssBeforeMb = (await app.memory()).rssMb;
    const streamsStarted = performance.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, async () => {
        const response = await fetch(`${baseUrl}/api/chat`, {
          method: "POST",
          headers: chatHeaders(adminCookie),
          body: chatBody("bench-model", longText),
        });
        const { tokens } = await readStream(response, isAppToken, performance.now());
        if (tokens === 0) throw new Error("no tokens");
      }),
    );
    const streamsFigures: StreamsFigures = {
      streams: outcomes.length,
      errors: outcomes.filter((o) => o.status === "rejected").length,
      seconds: (performance.now() - streamsStarted) / 1000,
      rssBeforeMb,
      rssAfterMb: (await app.memory()).rssMb,
    };
    console.log(
      `100 concurrent streams: ${streamsFigures.errors} errors in ${streamsFigures.seconds.toFixed(1)} s; RSS ${rssBeforeMb.toFixed(0)} → ${streamsFigures.rssAfterMb.toFixed(0)} MB`,
    );

    const weights = pageWeights();
    for (const w of weights) {
      const heaviest = heaviestPackages(w, 4)
        .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KB`)
        .join(", ");
      console.log(
        `JS for ${w.page}: ${(w.gzipBytes / 1024).toFixed(1)} KB gzip in ${w.files.length} files (minified, heaviest: ${heaviest})`,
      );
    }

    const browserChat = await measureBrowserChat({
      baseUrl,
      cookie: (await app.signIn("admin", "bench-browser")).cookie,
      model,
    });
    console.log(
      `Chromium: Enter to first word ${browserChat.enterToFirstTokenMs.toFixed(0)} ms through the app (model direct ${browserChat.directFirstTokenMs.toFixed(1)} ms); ` +
        `${browserChat.longReply.words}-word reply: ${browserChat.longReply.longTasks} long tasks, longest ${browserChat.longReply.maxMs.toFixed(0)} ms`,
    );

    writeReport(results, weights, chatFigures, streamsFigures, browserChat);
  } finally {
    await app.stop();
    await database?.drop();
  }
}

interface ChatFigures {
  latency: number;
  directFirstTokenMs: number;
  /** The first message of a new conversation. */
  appFirstTokenMs: number;
  /** A message in an existing conversation. */
  followUpFirstTokenMs: number;
  tokensPerSecond: number;
}

interface StreamsFigures {
  streams: number;
  errors: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  seconds: number;
}

function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function writeReport(
  results: Measurement[],
  weights: PageWeight[],
  chat: ChatFigures[],
  streams: StreamsFigures,
  browserChat: BrowserChatFigures,
) {
  const find = (scenario: string, latency: number, connections: number) =>
    results.find((r) => r.scenario === scenario && r.latency === latency && r.connections === connections)!;
  const lines: string[] = [];
  // On the PostgreSQL server the report is a part of its own after the main (PGlite) one.
  const h = (level: number, text: string) => `${"#".repeat(serverDatabaseUrl ? level + 1 : level)} ${text}`;
  lines.push(h(1, serverDatabaseUrl ? "The same benchmark on the PostgreSQL server" : "Benchmarks"), "");
  lines.push(`Run ${new Date().toISOString()} ${machineLine()}.`, "");
  lines.push(h(2, "Method"), "");
  lines.push(
    "`npm run bench` builds the app if needed, starts it with remix-serve in local mode (Auth emulator, Firestore " +
      `emulator, ${serverDatabaseUrl ? "a fresh database on the machine's PostgreSQL server, `npm run bench -- --database-url …`" : "PGlite"}) ` +
      "on loopback, each backend behind a TCP proxy, and drives it with autocannon for " +
      `${durationSeconds} s per row after a short warm-up. "+N ms" rows add N ms to every round trip to the Auth and ` +
      "Firestore emulators (half each way) and 2 ms to PostgreSQL, standing for production's network. " +
      "Latencies are per request (p50/p95/p99, ms). The machines are noisy: compare figures within one run, as ratios.",
    "",
  );
  lines.push(h(2, "Pages"), "");
  lines.push(
    "| scenario | backend latency | connections | req/s | p50 | p95 | p99 | errors |",
    "|---|---|---|---|---|---|---|---|",
  );
  for (const r of results) {
    lines.push(
      `| ${r.scenario} | +${r.latency} ms | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} |`,
    );
  }
  lines.push("", h(2, "Ratios (logged in against anonymous, same run)"), "");
  lines.push(
    "| backend latency | connections | throughput signed-in / anonymous | p95 signed-in / anonymous | throughput admin / anonymous |",
    "|---|---|---|---|---|",
  );
  for (const latency of [...new Set(results.map((r) => r.latency))]) {
    for (const c of connectionCounts) {
      const anon = find("GET / anonymous", latency, c);
      const user = find("GET / logged in", latency, c);
      const admin = find("GET / admin", latency, c);
      lines.push(
        `| +${latency} ms | ${c} | ${((user.rps / anon.rps) * 100).toFixed(0)}% | ${(user.p95 / anon.p95).toFixed(2)}× | ${((admin.rps / anon.rps) * 100).toFixed(0)}% |`,
      );
    }
  }
  lines.push("", h(2, "Chat (through the app against straight from the scripted model server)"), "");
  lines.push(
    "Median of 15 of each: the first message of a new conversation, and a follow-up in an existing one (what most messages are). " +
      "Overhead: through the app minus straight from the model.",
    "",
  );
  lines.push(
    "| backend latency | first token, model direct | new conversation, through the app | overhead | follow-up, through the app | overhead | tokens/s through the app |",
    "|---|---|---|---|---|---|---|",
  );
  for (const c of chat) {
    const overhead = (ms: number) => `${(ms - c.directFirstTokenMs).toFixed(1)} ms`;
    lines.push(
      `| +${c.latency} ms | ${c.directFirstTokenMs.toFixed(1)} ms | ${c.appFirstTokenMs.toFixed(1)} ms | ${overhead(c.appFirstTokenMs)} | ` +
        `${c.followUpFirstTokenMs.toFixed(1)} ms | ${overhead(c.followUpFirstTokenMs)} | ${c.tokensPerSecond.toFixed(0)} |`,
    );
  }
  lines.push(
    "",
    `${streams.streams} concurrent streams: ${streams.errors} errors, ${streams.seconds.toFixed(1)} s, server RSS ${streams.rssBeforeMb.toFixed(0)} MB before, ${streams.rssAfterMb.toFixed(0)} MB after (growth ${(streams.rssAfterMb - streams.rssBeforeMb).toFixed(0)} MB).`,
  );
  lines.push("", h(2, "Page weight (JavaScript of a first visit, gzip)"), "");
  lines.push(
    "From the build's manifest: the entry, and each route's module and shared chunks from root to the page, each file gzipped on its own. " +
      "Chunks loaded later (the Markdown pipeline once the browser is idle, the code highlighter and its grammars when a reply shows code) are not counted. " +
      "Budget for the assistant page: 160 KB (ADR 051, tests/integration/page-weight.test.ts).",
    "",
  );
  lines.push("| page | files | KB gzip | heaviest packages (KB minified) |", "|---|---|---|---|");
  for (const w of weights) {
    const heaviest = heaviestPackages(w, 4)
      .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)}`)
      .join(", ");
    lines.push(`| ${w.page} | ${w.files.length} | ${(w.gzipBytes / 1024).toFixed(1)} | ${heaviest} |`);
  }
  const long = browserChat.longReply;
  lines.push("", h(2, "In the browser (Chromium, 1280×800, backend latency +0 ms)"), "");
  lines.push(
    `Median of ${browserChat.runs}: from the Enter keydown in a new chat to the frame after the reply's first word is in the page, ` +
      "against the same reply's first token straight from the scripted model server (timed from the bench process). " +
      `Then a ${long.words}-word reply (paragraphs, bold words, lists) streamed at one word per ${long.chunkDelayMs} ms: the browser's long tasks ` +
      "(PerformanceObserver 'longtask': main-thread work over 50 ms) from Enter to its last word on screen.",
    "",
  );
  lines.push(
    "| Enter to first word, through the app | of which: POST sent | response began | first token, model direct | long reply streamed in | long tasks | longest | total |",
    "|---|---|---|---|---|---|---|---|",
  );
  lines.push(
    `| ${browserChat.enterToFirstTokenMs.toFixed(0)} ms | ${browserChat.requestSentMs.toFixed(0)} ms | ${browserChat.responseStartMs.toFixed(0)} ms | ` +
      `${browserChat.directFirstTokenMs.toFixed(1)} ms | ${(long.streamMs / 1000).toFixed(1)} s | ` +
      `${long.longTasks} | ${long.maxMs.toFixed(0)} ms | ${long.totalMs.toFixed(0)} ms |`,
  );
  lines.push("");
  writeBenchmarks(serverDatabaseUrl ? "bench-postgres" : "bench", lines.join("\n"));
  console.log("\nWrote docs/benchmarks.md");
}

await main();
process.exit(0);
