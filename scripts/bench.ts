import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
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

/**
 * `npm run bench`: builds if needed, starts the app in local mode on free
 * ports behind latency proxies, and measures pages (throughput and latency
 * percentiles at 1, 10 and 50 connections), with no added backend latency
 * and with `--backend-latency` ms per round trip to the Auth and Firestore
 * emulators (and 2 ms to PostgreSQL), plus page weight. Prints a table and
 * writes docs/benchmarks.md. Figures compare within one run only.
 *
 *   npm run bench [-- --backend-latency 40] [--duration 5] [--connections 1,10,50]
 *                 [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
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

async function javascriptWeight(baseUrl: string, pagePath: string, cookie?: string) {
  const html = await (await fetch(baseUrl + pagePath, { headers: cookie ? { cookie } : {} })).text();
  const urls = new Set<string>();
  for (const match of html.matchAll(/(?:src|href)="(\/build\/[^"]+\.js)"/g)) urls.add(match[1]);
  for (const match of html.matchAll(/import\s*(?:[^"']*from\s*)?["'](\/build\/[^"']+\.js)["']/g)) urls.add(match[1]);
  let gzip = 0;
  let firebase = false;
  for (const url of urls) {
    const body = Buffer.from(await (await fetch(baseUrl + url)).arrayBuffer());
    gzip += gzipSync(body).length;
    if (body.includes("identitytoolkit.googleapis.com")) firebase = true;
  }
  return { files: urls.size, gzipKb: gzip / 1024, firebase };
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
      { name: "GET / signed in", path: "/", cookie: userCookie },
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
          body: JSON.stringify({ model: "bench-model", stream: true, messages: [{ role: "user", content: "hello there" }] }),
        });
        direct.push((await readStream(straight, isModelToken, started)).firstTokenMs);
        started = performance.now();
        const app = await fetch(`${baseUrl}/api/chat`, { method: "POST", headers: chatHeaders(adminCookie), body: chatBody("bench-model", "hello there") });
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
        const app = await fetch(`${baseUrl}/api/chat`, { method: "POST", headers: chatHeaders(adminCookie), body: chatBody("bench-model", longText) });
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
        const response = await fetch(`${baseUrl}/api/chat`, { method: "POST", headers: chatHeaders(adminCookie), body: chatBody("bench-model", longText) });
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

    const weights = {
      "/": await javascriptWeight(baseUrl, "/"),
      "/login": await javascriptWeight(baseUrl, "/login"),
      "/nuvara": await javascriptWeight(baseUrl, "/nuvara", userCookie),
    };
    for (const [page, w] of Object.entries(weights)) {
      console.log(`JS for ${page}: ${w.gzipKb.toFixed(1)} KB gzip in ${w.files} files; Firebase client code: ${w.firebase ? "yes" : "no"}`);
    }

    writeReport(results, weights, chatFigures, streamsFigures);
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
  weights: Record<string, { files: number; gzipKb: number; firebase: boolean }>,
  chat: ChatFigures[],
  streams: StreamsFigures,
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
  lines.push("| scenario | backend latency | connections | req/s | p50 | p95 | p99 | errors |", "|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    lines.push(`| ${r.scenario} | +${r.latency} ms | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} |`);
  }
  lines.push("", h(2, "Ratios (signed in against anonymous, same run)"), "");
  lines.push("| backend latency | connections | throughput signed-in / anonymous | p95 signed-in / anonymous | throughput admin / anonymous |", "|---|---|---|---|---|");
  for (const latency of [...new Set(results.map((r) => r.latency))]) {
    for (const c of connectionCounts) {
      const anon = find("GET / anonymous", latency, c);
      const user = find("GET / signed in", latency, c);
      const admin = find("GET / admin", latency, c);
      lines.push(`| +${latency} ms | ${c} | ${(user.rps / anon.rps * 100).toFixed(0)}% | ${(user.p95 / anon.p95).toFixed(2)}× | ${(admin.rps / anon.rps * 100).toFixed(0)}% |`);
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
  lines.push("", `${streams.streams} concurrent streams: ${streams.errors} errors, ${streams.seconds.toFixed(1)} s, server RSS ${streams.rssBeforeMb.toFixed(0)} MB before, ${streams.rssAfterMb.toFixed(0)} MB after (growth ${(streams.rssAfterMb - streams.rssBeforeMb).toFixed(0)} MB).`);
  lines.push("", h(2, "Page weight (JavaScript requested by the page, gzip)"), "");
  lines.push("| page | files | KB gzip | Firebase client code |", "|---|---|---|---|");
  for (const [page, w] of Object.entries(weights)) lines.push(`| ${page} | ${w.files} | ${w.gzipKb.toFixed(1)} | ${w.firebase ? "yes" : "no"} |`);
  lines.push("");
  writeBenchmarks(serverDatabaseUrl ? "bench-postgres" : "bench", lines.join("\n"));
  console.log("\nWrote docs/benchmarks.md");
}

await main();
process.exit(0);
