import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import { randomUUID } from "node:crypto";
import { startFaultProxy, type FaultProxy } from "../tests/support/fault-proxy";
import { startModelServer } from "../tests/support/model-server";
import { createAccount, idTokenFor } from "../tests/support/identity";
import { buildIfStale, SERVER_BUILD } from "./build-if-stale";
import { freePort, waitFor } from "./local/ports";
import { startLocalStack } from "./local/stack";

/**
 * `npm run bench`: builds if needed, starts the app in local mode on free
 * ports behind latency proxies, and measures pages (throughput and latency
 * percentiles at 1, 10 and 50 connections), with no added backend latency
 * and with `--backend-latency` ms per round trip to the Auth and Firestore
 * emulators (and 2 ms to PostgreSQL), plus page weight. Prints a table and
 * writes docs/benchmarks.md. Figures compare within one run only.
 *
 *   npm run bench [-- --backend-latency 40] [--duration 5] [--connections 1,10,50]
 */
function option(name: string, fallback: string) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
}
const backendLatency = Number(option("backend-latency", "40"));
const durationSeconds = Number(option("duration", "5"));
const connectionCounts = option("connections", "1,10,50").split(",").map(Number);

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

function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
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
  buildIfStale();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "nuvara-bench-"));
  const stack = await startLocalStack({
    projectId: "demo-nuvara-bench",
    authHost: `127.0.0.1:${await freePort()}`,
    firestoreHost: `127.0.0.1:${await freePort()}`,
    workDir,
  });
  const proxies: Record<"identity" | "firestore" | "postgres", FaultProxy> = {
    identity: await startFaultProxy(stack.env.FIREBASE_AUTH_EMULATOR_HOST),
    firestore: await startFaultProxy(stack.env.FIRESTORE_EMULATOR_HOST),
    postgres: await startFaultProxy(new URL(stack.env.DATABASE_URL).host),
  };
  const databaseUrl = new URL(stack.env.DATABASE_URL);
  databaseUrl.host = proxies.postgres.hostPort;

  const model = await startModelServer({ models: ["bench-model"] });
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;
  try {
    server = spawn(process.execPath, [path.resolve("node_modules/@remix-run/serve/dist/cli.js"), SERVER_BUILD], {
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        FIREBASE_PROJECT_ID: stack.env.FIREBASE_PROJECT_ID,
        FIREBASE_AUTH_EMULATOR_HOST: proxies.identity.hostPort,
        FIRESTORE_EMULATOR_HOST: proxies.firestore.hostPort,
        DATABASE_URL: databaseUrl.toString(),
        DATABASE_POOL_SIZE: stack.env.DATABASE_POOL_SIZE ?? "10",
        BACKEND_TIMEOUT_MS: "10000",
        LLM_BASE_URL: model.url,
        LLM_MODELS: "bench-model",
      },
    });
    await waitFor("the app", async () => (await fetch(`${baseUrl}/healthz`)).ok);

    const sessionCookie = async (role: string) => {
      const account = await createAccount(stack.admin, { role, prefix: `bench-${role || "user"}` });
      const idToken = await idTokenFor(stack.env.FIREBASE_AUTH_EMULATOR_HOST, account);
      const response = await fetch(`${baseUrl}/api/auth/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: baseUrl },
        body: JSON.stringify({ idToken }),
      });
      return response.headers.get("set-cookie")!.split(";")[0];
    };
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

    const chatFigures: ChatFigures[] = [];
    const longText = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    for (const latency of [0, backendLatency]) {
      proxies.identity.latencyMs = latency / 2;
      proxies.firestore.latencyMs = latency / 2;
      proxies.postgres.latencyMs = latency > 0 ? 1 : 0;
      const direct: number[] = [];
      const viaApp: number[] = [];
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
      }
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const app = await fetch(`${baseUrl}/api/chat`, { method: "POST", headers: chatHeaders(adminCookie), body: chatBody("bench-model", longText) });
        const { tokens, totalMs } = await readStream(app, isAppToken, started);
        rate = Math.max(rate, tokens / (totalMs / 1000));
      }
      const figures = { latency, directFirstTokenMs: median(direct), appFirstTokenMs: median(viaApp), tokensPerSecond: rate };
      chatFigures.push(figures);
      console.log(
        `chat +${latency} ms: first token ${figures.directFirstTokenMs.toFixed(1)} ms direct, ${figures.appFirstTokenMs.toFixed(1)} ms through the app; ${rate.toFixed(0)} tokens/s`,
      );
    }

    proxies.identity.latencyMs = 0;
    proxies.firestore.latencyMs = 0;
    proxies.postgres.latencyMs = 0;
    const rssBeforeMb = rssMb(server.pid!);
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
      rssAfterMb: rssMb(server.pid!),
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
    server?.kill("SIGTERM");
    await model.close();
    for (const proxy of Object.values(proxies)) await proxy.close();
    await stack.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

interface ChatFigures {
  latency: number;
  directFirstTokenMs: number;
  appFirstTokenMs: number;
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

/** Reads a streaming response until `isToken` matches a line; returns ms to that line and the token count. */
async function readStream(response: Response, isToken: (line: string) => boolean, started: number) {
  if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}: ${await response.text()}`);
  const decoder = new TextDecoder();
  let firstTokenMs = NaN;
  let tokens = 0;
  let buffered = "";
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (!isToken(line)) continue;
      tokens++;
      if (Number.isNaN(firstTokenMs)) firstTokenMs = performance.now() - started;
    }
  }
  return { firstTokenMs, tokens, totalMs: performance.now() - started };
}

const isModelToken = (line: string) => line.startsWith("data: {") && line.includes('"content":"');
const isAppToken = (line: string) => line.startsWith("data: {") && line.includes('"type":"text-delta"');

function chatBody(model: string, text: string) {
  return JSON.stringify({
    conversationId: randomUUID(),
    create: true,
    message: { id: randomUUID(), role: "user", parts: [{ type: "text", text }] },
    model,
  });
}

function rssMb(pid: number) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
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
  lines.push("# Benchmarks", "");
  lines.push(`Run ${new Date().toISOString()} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown CPU"}), ` +
    `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}.`, "");
  lines.push("## Method", "");
  lines.push(
    "`npm run bench` builds the app if needed, starts it with remix-serve in local mode (Auth emulator, Firestore " +
      "emulator, PGlite) on loopback, each backend behind a TCP proxy, and drives it with autocannon for " +
      `${durationSeconds} s per row after a short warm-up. "+N ms" rows add N ms to every round trip to the Auth and ` +
      "Firestore emulators (half each way) and 2 ms to PostgreSQL, standing for production's network. " +
      "Latencies are per request (p50/p95/p99, ms). The machines are noisy: compare figures within one run, as ratios.",
    "",
  );
  lines.push("## Pages", "");
  lines.push("| scenario | backend latency | connections | req/s | p50 | p95 | p99 | errors |", "|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    lines.push(`| ${r.scenario} | +${r.latency} ms | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} |`);
  }
  lines.push("", "## Ratios (signed in against anonymous, same run)", "");
  lines.push("| backend latency | connections | throughput signed-in / anonymous | p95 signed-in / anonymous | throughput admin / anonymous |", "|---|---|---|---|---|");
  for (const latency of [...new Set(results.map((r) => r.latency))]) {
    for (const c of connectionCounts) {
      const anon = find("GET / anonymous", latency, c);
      const user = find("GET / signed in", latency, c);
      const admin = find("GET / admin", latency, c);
      lines.push(`| +${latency} ms | ${c} | ${(user.rps / anon.rps * 100).toFixed(0)}% | ${(user.p95 / anon.p95).toFixed(2)}× | ${(admin.rps / anon.rps * 100).toFixed(0)}% |`);
    }
  }
  lines.push("", "## Chat (through the app against straight from the scripted model server)", "");
  lines.push("| backend latency | first token, model direct | first token, through the app | overhead | tokens/s through the app |", "|---|---|---|---|---|");
  for (const c of chat) {
    lines.push(`| +${c.latency} ms | ${c.directFirstTokenMs.toFixed(1)} ms | ${c.appFirstTokenMs.toFixed(1)} ms | ${(c.appFirstTokenMs - c.directFirstTokenMs).toFixed(1)} ms | ${c.tokensPerSecond.toFixed(0)} |`);
  }
  lines.push("", `${streams.streams} concurrent streams: ${streams.errors} errors, ${streams.seconds.toFixed(1)} s, server RSS ${streams.rssBeforeMb.toFixed(0)} MB before, ${streams.rssAfterMb.toFixed(0)} MB after (growth ${(streams.rssAfterMb - streams.rssBeforeMb).toFixed(0)} MB).`);
  lines.push("", "## Page weight (JavaScript requested by the page, gzip)", "");
  lines.push("| page | files | KB gzip | Firebase client code |", "|---|---|---|---|");
  for (const [page, w] of Object.entries(weights)) lines.push(`| ${page} | ${w.files} | ${w.gzipKb.toFixed(1)} | ${w.firebase ? "yes" : "no"} |`);
  lines.push("");
  fs.writeFileSync("docs/benchmarks.md", lines.join("\n"));
  console.log("\nWrote docs/benchmarks.md");
}

await main();
process.exit(0);
