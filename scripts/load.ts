import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  chatBody,
  cpuSeconds,
  freshDatabase,
  machineLine,
  argumentsShown,
  option,
  percentile,
  startAppUnderTest,
  writeBenchmarks,
  type AppUnderTest,
  type ServerMemory,
} from "./perf/app-under-test";
import { sendChat, someWords } from "./perf/chat-client";
import { runOverload } from "./perf/overload";
import { checkStoredMessages, type ConfirmedMessage } from "./perf/stored-messages";

/**
 * `npm run load`: simulated signed-in users browse and chat against the
 * scripted model for a few minutes on loopback, then the run is checked:
 * no 5xx, no failed request, every message the app confirmed is stored in
 * PostgreSQL with its reply, each user's quota count equals the messages
 * they sent, and the server's heap is back where it was once idle. Prints a
 * summary, writes it to docs/benchmarks.md (a "Load" section per database)
 * and exits non-zero when a check fails.
 *
 *   npm run load [-- --users 200] [--duration 180] [--think-ms 3000]
 *                [--database-url postgresql://postgres@127.0.0.1:5432/test] [--no-write]
 *
 * Without --database-url the app uses embedded PGlite as in local mode; with
 * it, a fresh database made on that server for the run and dropped after.
 *
 *   npm run load -- --overload [--database-url …] …
 *
 * runs the overload scenario instead (scripts/perf/overload.ts): the
 * instance's capacity, then ten times that many senders at once.
 */
const userCount = Number(option("users", "200"));
const durationSeconds = Number(option("duration", "180"));
/** Mean pause between two actions of one user (uniform between half and one and a half times). */
const thinkMs = Number(option("think-ms", "3000"));
/** Users start spread over this many seconds. */
const rampSeconds = Number(option("ramp", "20"));
/** Idle time after the run before the last memory sample (past the 30 s auth cache). */
const settleSeconds = Number(option("settle", "35"));
/** The scripted model's pause before each word (a real model streams, too). */
const chunkDelayMs = Number(option("chunk-delay-ms", "15"));
/** Every n-th user has a role with a small daily quota, to check refusals at the limit. */
const cappedEvery = Number(option("capped-every", "10"));
const CAPPED_ROLE = "load-capped";
const CAPPED_QUOTA = 5;
/** Heap after the run and a forced collection may exceed the heap at the first third of the run by this much. */
const maxHeapGrowthMb = Number(option("max-heap-growth-mb", "20"));
const serverDatabaseUrl = option("database-url", "");
/** The app's deadline for each backend call (its own default is 3000). */
const backendTimeoutMs = option("backend-timeout-ms", "10000");
const writeReport = !process.argv.includes("--no-write");
const MODEL = "load-model";

interface SimulatedUser {
  index: number;
  uid: string;
  cookie: string;
  capped: boolean;
  conversations: string[];
  /** Messages the app confirmed as stored (data-saved). */
  confirmed: number;
  /** Refused with 429 (quota). */
  refused: number;
}

interface RouteFigures {
  statuses: Map<number, number>;
  times: number[];
  networkErrors: number;
}

class Recorder {
  readonly routes = new Map<string, RouteFigures>();
  readonly firstTokenMs: number[] = [];
  readonly confirmed: ConfirmedMessage[] = [];
  /** 200 streams that ended without the saved confirmation (a failed reply). */
  readonly failedReplies: Array<{ uid: string; error: string }> = [];
  readonly problems: string[] = [];
  openStreams = 0;

  private route(name: string) {
    let figures = this.routes.get(name);
    if (!figures) this.routes.set(name, (figures = { statuses: new Map(), times: [], networkErrors: 0 }));
    return figures;
  }

  status(name: string, status: number, ms: number) {
    const figures = this.route(name);
    figures.statuses.set(status, (figures.statuses.get(status) ?? 0) + 1);
    figures.times.push(ms);
    if (status >= 500) this.problem(`${name} answered ${status}`);
  }

  networkError(name: string, error: unknown) {
    this.route(name).networkErrors++;
    this.problem(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  problem(text: string) {
    if (this.problems.length < 20) this.problems.push(text);
  }

  count(predicate: (status: number) => boolean) {
    let total = 0;
    for (const figures of this.routes.values()) {
      for (const [status, n] of figures.statuses) if (predicate(status)) total += n;
    }
    return total;
  }

  get networkErrors() {
    return [...this.routes.values()].reduce((sum, figures) => sum + figures.networkErrors, 0);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const think = () => sleep(thinkMs * (0.5 + Math.random()));

async function main() {
  const database = serverDatabaseUrl ? await freshDatabase(serverDatabaseUrl, "load") : undefined;
  const logFile = path.join(os.tmpdir(), `nuvara-load-${process.pid}.log`);
  let app: AppUnderTest | undefined;
  try {
    app = await startAppUnderTest({
      name: "load",
      models: [MODEL],
      databaseUrl: database?.url,
      echoChunkDelayMs: chunkDelayMs,
      inspect: true,
      logFile,
      env: {
        // High enough that only the capped role reaches its limit.
        QUOTA_DAILY_MESSAGES: `none=100000;*=100000;${CAPPED_ROLE}=${CAPPED_QUOTA}`,
        BACKEND_TIMEOUT_MS: backendTimeoutMs,
      },
    });
    const result = await run(app);
    const failures = checkInvariants(result);
    printSummary(result, failures, logFile);
    if (writeReport) {
      writeBenchmarks(result.databaseKind === "PGlite" ? "load-pglite" : "load-postgres", report(result, failures));
      console.log("\nWrote docs/benchmarks.md");
    }
    return failures.length === 0;
  } finally {
    await app?.stop();
    await database?.drop();
  }
}

type RunResult = Awaited<ReturnType<typeof run>>;

async function run(app: AppUnderTest) {
  const { baseUrl } = app;
  const databaseKind = serverDatabaseUrl ? "PostgreSQL server" : "PGlite";
  const recorder = new Recorder();

  // Accounts first, ten at a time: the Auth emulator, the Firestore record, the session endpoint.
  const signInStarted = performance.now();
  const users: SimulatedUser[] = [];
  for (let start = 0; start < userCount; start += 10) {
    const batch = Array.from({ length: Math.min(10, userCount - start) }, async (_, offset) => {
      const index = start + offset;
      const capped = cappedEvery > 0 && index % cappedEvery === cappedEvery - 1;
      const signedIn = await app.signIn(capped ? CAPPED_ROLE : "", `load-${index}`);
      return { index, uid: signedIn.uid, cookie: signedIn.cookie, capped, conversations: [], confirmed: 0, refused: 0 };
    });
    users.push(...(await Promise.all(batch)));
  }
  const signInSeconds = (performance.now() - signInStarted) / 1000;
  console.log(
    `${users.length} users logged in in ${signInSeconds.toFixed(1)} s (${users.filter((u) => u.capped).length} capped at ${CAPPED_QUOTA} messages a day)`,
  );

  const memory: Array<{ when: string } & ServerMemory> = [];
  const sample = async (when: string, gc: boolean) => {
    const m = await app.memory({ gc });
    memory.push({ when, ...m });
    return m;
  };
  await sample("before the run (after login), after GC", true);

  const pageHeaders = (user: SimulatedUser) => ({
    cookie: user.cookie,
    accept: "text/html,application/xhtml+xml",
    "sec-fetch-site": "same-origin",
    "sec-fetch-mode": "navigate",
  });

  async function page(user: SimulatedUser, pagePath: string, name = `GET ${pagePath}`) {
    const started = performance.now();
    try {
      const response = await fetch(baseUrl + pagePath, { headers: pageHeaders(user), redirect: "manual" });
      await response.arrayBuffer();
      recorder.status(name, response.status, performance.now() - started);
      if (response.status >= 300 && response.status < 500) recorder.problem(`${name} answered ${response.status}`);
    } catch (error) {
      recorder.networkError(name, error);
    }
  }

  let messageNumber = 0;
  /** Sends one message as the browser does and reads the reply to its end; true when the app confirmed it stored. */
  async function send(user: SimulatedUser, conversationId: string, create: boolean) {
    const name = "POST /api/chat";
    const text = `Message ${++messageNumber} from user ${user.index}: ${someWords(12)}`;
    const messageId = randomUUID();
    recorder.openStreams++;
    try {
      const answer = await sendChat(baseUrl, user.cookie, chatBody(MODEL, text, { conversationId, create, messageId }));
      recorder.status(name, answer.status, answer.totalMs);
      if (answer.status !== 200) {
        if (answer.status === 429) user.refused++;
        if (answer.status !== 429 || !user.capped)
          recorder.problem(`${name} answered ${answer.status}: ${answer.error}`);
        return false;
      }
      recorder.firstTokenMs.push(answer.firstTokenMs);
      const { saved } = answer;
      if (saved?.userMessageId === messageId && saved.conversationId === conversationId) {
        recorder.confirmed.push({
          uid: user.uid,
          conversationId,
          userMessageId: messageId,
          replyId: saved.replyId,
          text,
        });
        user.confirmed++;
        return true;
      }
      recorder.failedReplies.push({
        uid: user.uid,
        error: answer.error ?? "the stream ended without a saved confirmation",
      });
      recorder.problem(`reply not saved: ${answer.error ?? "no confirmation"}`);
      return false;
    } catch (error) {
      recorder.networkError(name, error);
      return false;
    } finally {
      recorder.openStreams--;
    }
  }

  const cpuBefore = { server: cpuSeconds(app.server.pid!), here: process.cpuUsage() };
  const runStarted = performance.now();
  const deadline = runStarted + durationSeconds * 1000;
  const running = () => performance.now() < deadline;

  async function simulate(user: SimulatedUser) {
    await sleep((rampSeconds * 1000 * user.index) / userCount);
    while (running()) {
      for (const pagePath of ["/", "/dashboard", "/nuvara", "/tools"]) {
        await page(user, pagePath);
        await think();
        if (!running()) return;
      }
      // Open a conversation: a new chat, or one of theirs.
      let conversationId: string = randomUUID();
      let create = true;
      if (user.conversations.length > 0 && Math.random() < 0.5) {
        conversationId = user.conversations[Math.floor(Math.random() * user.conversations.length)];
        create = false;
        await page(user, `/nuvara/${conversationId}`, "GET /nuvara/<id>");
        await think();
      }
      const messages = 1 + Math.floor(Math.random() * 3);
      for (let i = 0; i < messages && running(); i++) {
        const stored = await send(user, conversationId, create);
        if (stored && create) {
          user.conversations.push(conversationId);
          create = false;
        }
        await think();
      }
      if (!create && Math.random() < 0.3 && running()) {
        await page(user, `/nuvara/${conversationId}`, "GET /nuvara/<id>");
        await think();
      }
    }
  }

  const requestsSoFar = () =>
    [...recorder.routes.values()].reduce((sum, f) => sum + f.times.length + f.networkErrors, 0);
  const progress = setInterval(() => {
    const rss = memory.at(-1)?.rssMb ?? 0;
    void sample(`during, ${((performance.now() - runStarted) / 1000).toFixed(0)} s`, false).catch(() => undefined);
    console.log(
      `${((performance.now() - runStarted) / 1000).toFixed(0).padStart(4)} s  requests ${requestsSoFar()}  open streams ${recorder.openStreams}  ` +
        `confirmed ${recorder.confirmed.length}  5xx ${recorder.count((s) => s >= 500)}  network errors ${recorder.networkErrors}  RSS ${rss.toFixed(0)} MB`,
    );
  }, 10_000);
  const thirds = [1, 2].map((n) =>
    setTimeout(
      () => void sample(`${n}/3 of the run, after GC`, true).catch(() => undefined),
      (durationSeconds * 1000 * n) / 3,
    ),
  );
  await Promise.all(users.map((user) => simulate(user)));
  clearInterval(progress);
  thirds.forEach(clearTimeout);
  const runSeconds = (performance.now() - runStarted) / 1000;
  const hereCpu = process.cpuUsage(cpuBefore.here);
  const cpu = {
    server: (cpuSeconds(app.server.pid!) - cpuBefore.server) / runSeconds,
    here: (hereCpu.user + hereCpu.system) / 1e6 / runSeconds,
  };
  await sample("end of the run, after GC", true);
  console.log(`Run over after ${runSeconds.toFixed(0)} s; idle for ${settleSeconds} s…`);
  await sleep(settleSeconds * 1000);
  await sample(`after ${settleSeconds} s idle, after GC`, true);

  const stored = await checkStoredMessages(app.databaseUrl, users, recorder.confirmed, CAPPED_QUOTA);
  return { databaseKind, users, recorder, memory, stored, runSeconds, signInSeconds, cpu };
}

function heapGrowth(result: RunResult) {
  const collected = result.memory.filter((m) => m.when.endsWith("after GC") && m.heapUsedMb !== undefined);
  const reference = collected.find((m) => m.when.startsWith("1/3")) ?? collected[0];
  const last = collected.at(-1);
  return reference && last ? { from: reference, to: last, mb: last.heapUsedMb! - reference.heapUsedMb! } : undefined;
}

function checkInvariants(result: RunResult) {
  const { recorder, stored } = result;
  const failures: string[] = [];
  const fiveHundreds = recorder.count((s) => s >= 500);
  if (fiveHundreds > 0) failures.push(`${fiveHundreds} responses with a 5xx status`);
  if (recorder.networkErrors > 0) failures.push(`${recorder.networkErrors} requests failed without a response`);
  const unexpected =
    recorder.count((s) => s >= 300 && s < 500) -
    result.users.filter((u) => u.capped).reduce((sum, u) => sum + u.refused, 0);
  if (unexpected > 0)
    failures.push(`${unexpected} unexpected 3xx/4xx responses (only 429 for capped users is expected)`);
  if (recorder.failedReplies.length > 0)
    failures.push(`${recorder.failedReplies.length} replies streamed but not saved`);
  if (stored.lost > 0) failures.push(`${stored.lost} confirmed messages missing from PostgreSQL`);
  if (stored.wrong > 0)
    failures.push(`${stored.wrong} confirmed messages stored with the wrong content, owner or status`);
  if (stored.unconfirmedRows !== 0)
    failures.push(`${stored.unconfirmedRows} message rows beyond the confirmed exchanges`);
  if (stored.quotaMismatches > 0)
    failures.push(`${stored.quotaMismatches} users whose usage_daily.messages differs from the messages they sent`);
  if (stored.cappedOver > 0) failures.push(`${stored.cappedOver} capped users got more than ${CAPPED_QUOTA} messages`);
  if (stored.heldReservations)
    failures.push(`${stored.heldReservations} quota reservations still held after every reply ended`);
  const growth = heapGrowth(result);
  if (growth && growth.mb > maxHeapGrowthMb)
    failures.push(`heap grew ${growth.mb.toFixed(1)} MB after the run (limit ${maxHeapGrowthMb} MB)`);
  if (recorder.confirmed.length === 0) failures.push("no message was confirmed");
  return failures;
}

function routeRows(recorder: Recorder) {
  return [...recorder.routes.entries()].map(([name, figures]) => {
    const times = [...figures.times].sort((a, b) => a - b);
    const byClass = (low: number) =>
      [...figures.statuses].filter(([s]) => s >= low && s < low + 100).reduce((sum, [, n]) => sum + n, 0);
    const clientErrors = [...figures.statuses]
      .filter(([s]) => s >= 400 && s < 500)
      .map(([s, n]) => `${n}×${s}`)
      .join(", ");
    return {
      name,
      requests: times.length + figures.networkErrors,
      p50: percentile(times, 50),
      p95: percentile(times, 95),
      p99: percentile(times, 99),
      ok: byClass(200),
      redirects: byClass(300),
      clientErrors: clientErrors || "0",
      serverErrors: byClass(500),
      networkErrors: figures.networkErrors,
    };
  });
}

function chatFigures(result: RunResult) {
  const { recorder, users } = result;
  const firstTokens = recorder.firstTokenMs.filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b);
  const chat = recorder.routes.get("POST /api/chat");
  const sent = chat ? chat.times.length + chat.networkErrors : 0;
  const refused = users.reduce((sum, user) => sum + user.refused, 0);
  return { sent, refused, firstTokenP50: percentile(firstTokens, 50), firstTokenP95: percentile(firstTokens, 95) };
}

function printSummary(result: RunResult, failures: string[], logFile: string) {
  const { recorder, stored } = result;
  const total = routeRows(recorder).reduce((sum, row) => sum + row.requests, 0);
  console.log(
    `\n${result.users.length} users, ${result.runSeconds.toFixed(0)} s, ${total} requests (${(total / result.runSeconds).toFixed(1)}/s), database ${result.databaseKind}`,
  );
  console.log(
    "route".padEnd(20) +
      "requests".padStart(9) +
      "p50".padStart(9) +
      "p95".padStart(9) +
      "p99".padStart(9) +
      "  statuses",
  );
  for (const row of routeRows(recorder)) {
    console.log(
      row.name.padEnd(20) +
        String(row.requests).padStart(9) +
        row.p50.toFixed(0).padStart(9) +
        row.p95.toFixed(0).padStart(9) +
        row.p99.toFixed(0).padStart(9) +
        `  2xx ${row.ok}, 3xx ${row.redirects}, 4xx ${row.clientErrors}, 5xx ${row.serverErrors}, network ${row.networkErrors}`,
    );
  }
  const chat = chatFigures(result);
  console.log(
    `chat: ${chat.sent} sent, ${recorder.confirmed.length} confirmed, ${chat.refused} refused at the quota, ${recorder.failedReplies.length} failed replies; ` +
      `first token p50 ${chat.firstTokenP50.toFixed(0)} ms, p95 ${chat.firstTokenP95.toFixed(0)} ms`,
  );
  console.log(
    `PostgreSQL: ${stored.rows} message rows for ${recorder.confirmed.length} confirmed exchanges; lost ${stored.lost}, wrong ${stored.wrong}; ` +
      `quota counted ${stored.quotaCounted}, mismatched users ${stored.quotaMismatches}` +
      `${stored.heldReservations === undefined ? "" : `, reservations still held ${stored.heldReservations}`}`,
  );
  console.log(
    `CPU during the run: app server ${(result.cpu.server * 100).toFixed(0)}%, this process ${(result.cpu.here * 100).toFixed(0)}% (of one core)`,
  );
  for (const m of result.memory.filter((m) => !m.when.startsWith("during"))) {
    console.log(`memory ${m.when}: RSS ${m.rssMb.toFixed(0)} MB, heap used ${m.heapUsedMb?.toFixed(1) ?? "?"} MB`);
  }
  // The inspector's own lines (sessions opened for the memory samples) are not the app's.
  const log = fs.existsSync(logFile)
    ? fs
        .readFileSync(logFile, "utf8")
        .split("\n")
        .filter((line) => line && !/^(Debugger |For help, see)/.test(line))
    : [];
  console.log(
    `server log: ${log.length} lines (${logFile})${log.length ? `, first: ${log.slice(0, 3).join(" | ")}` : ""}`,
  );
  for (const problem of recorder.problems.slice(0, 10)) console.log(`  problem: ${problem}`);
  for (const example of stored.examples) console.log(`  ${example}`);
  console.log(
    failures.length === 0 ? "\nAll checks passed." : `\nFAILED:\n${failures.map((f) => `  - ${f}`).join("\n")}`,
  );
}

function report(result: RunResult, failures: string[]) {
  const { recorder, stored } = result;
  const rows = routeRows(recorder);
  const total = rows.reduce((sum, row) => sum + row.requests, 0);
  const chat = chatFigures(result);
  const growth = heapGrowth(result);
  const peakRss = Math.max(...result.memory.map((m) => m.rssMb));
  const fiveHundreds = recorder.count((s) => s >= 500);
  const pass = (ok: boolean) => (ok ? "pass" : "**FAIL**");
  const args = argumentsShown();
  const lines: string[] = [];
  const mode =
    result.databaseKind === "PGlite"
      ? "local mode, embedded PGlite (one connection)"
      : "a PostgreSQL server (pool of 10)";
  lines.push(`## Load: ${result.users.length} users, ${mode}`, "");
  lines.push(`Run ${new Date().toISOString()} ${machineLine()}: \`npm run load${args ? ` -- ${args}` : ""}\`.`, "");
  lines.push(
    `Each user signs in (an Auth emulator account, a fresh ID token posted to /api/auth/session), then loops until the ` +
      `${durationSeconds} s are over, pausing ${thinkMs / 2}–${(thinkMs * 3) / 2} ms between actions: GET /, /dashboard, /nuvara, ` +
      `/tools, then a new chat or (half the time, once they have one) one of their conversations (GET /nuvara/<id>), ` +
      `1–3 messages to POST /api/chat with the browser's same-origin headers, each stream read to its end, and now and then ` +
      `/nuvara/<id> again. The scripted model echoes each message word by word (${chunkDelayMs} ms a word). A message counts ` +
      `as confirmed when its stream carries the data-saved part. Every ${cappedEvery}th user has a role limited to ` +
      `${CAPPED_QUOTA} messages a day, so refusals at the limit are exercised; other roles' limits are set out of reach. ` +
      `The app runs with remix-serve in production mode on loopback (BACKEND_TIMEOUT_MS=${backendTimeoutMs}), ` +
      `the load generator, the emulators and ${result.databaseKind === "PGlite" ? "PGlite" : "the PostgreSQL server"} ` +
      `sharing the same ${os.cpus().length} cores.`,
    "",
  );
  lines.push("| check | result | |", "|---|---|---|");
  lines.push(`| 5xx responses | ${fiveHundreds} | ${pass(fiveHundreds === 0)} |`);
  lines.push(`| requests without a response | ${recorder.networkErrors} | ${pass(recorder.networkErrors === 0)} |`);
  lines.push(
    `| replies streamed but not saved | ${recorder.failedReplies.length} | ${pass(recorder.failedReplies.length === 0)} |`,
  );
  lines.push(
    `| confirmed messages missing from PostgreSQL (of ${recorder.confirmed.length}) | ${stored.lost} | ${pass(stored.lost === 0)} |`,
  );
  lines.push(
    `| confirmed messages stored wrong (content, owner, reply status) | ${stored.wrong} | ${pass(stored.wrong === 0)} |`,
  );
  lines.push(
    `| message rows beyond the confirmed exchanges | ${stored.unconfirmedRows} | ${pass(stored.unconfirmedRows === 0)} |`,
  );
  lines.push(
    `| users whose usage_daily.messages ≠ messages sent | ${stored.quotaMismatches} (counted ${stored.quotaCounted}, sent ${recorder.confirmed.length}) | ${pass(stored.quotaMismatches === 0)} |`,
  );
  lines.push(
    `| capped users over ${CAPPED_QUOTA} messages | ${stored.cappedOver} | ${pass(stored.cappedOver === 0)} |`,
  );
  if (stored.heldReservations !== undefined) {
    lines.push(
      `| quota reservations still held after the run | ${stored.heldReservations} | ${pass(stored.heldReservations === 0)} |`,
    );
  }
  lines.push(
    `| heap growth after the run (post-GC, from 1/3 of the run to ${settleSeconds} s idle) | ${growth ? `${growth.mb.toFixed(1)} MB` : "n/a"} | ${pass(!growth || growth.mb <= maxHeapGrowthMb)} |`,
  );
  lines.push("", `${failures.length === 0 ? "All checks passed." : `Failed: ${failures.join("; ")}.`}`, "");
  lines.push(
    `${total} requests in ${result.runSeconds.toFixed(0)} s (${(total / result.runSeconds).toFixed(1)}/s); ${chat.sent} messages sent, ` +
      `${recorder.confirmed.length} confirmed, ${chat.refused} refused with 429 at the capped users' limit. ` +
      `First token through the app: p50 ${chat.firstTokenP50.toFixed(0)} ms, p95 ${chat.firstTokenP95.toFixed(0)} ms. ` +
      `Signing the ${result.users.length} users in took ${result.signInSeconds.toFixed(1)} s. ` +
      `CPU during the run: the app server ${(result.cpu.server * 100).toFixed(0)}% of a core, the load generator's process ` +
      `(simulated users, scripted model, Firestore emulator${result.databaseKind === "PGlite" ? ", PGlite" : ""}) ${(result.cpu.here * 100).toFixed(0)}%.`,
    "",
  );
  lines.push(
    "| route | requests | p50 ms | p95 ms | p99 ms | 2xx | 3xx | 4xx | 5xx | no response |",
    "|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const row of rows) {
    lines.push(
      `| ${row.name} | ${row.requests} | ${row.p50.toFixed(0)} | ${row.p95.toFixed(0)} | ${row.p99.toFixed(0)} | ${row.ok} | ${row.redirects} | ${row.clientErrors} | ${row.serverErrors} | ${row.networkErrors} |`,
    );
  }
  lines.push("", "POST /api/chat times run to the end of the stream.", "");
  lines.push("| server memory | RSS MB | heap used MB |", "|---|---|---|");
  for (const m of result.memory.filter((m) => !m.when.startsWith("during"))) {
    lines.push(`| ${m.when} | ${m.rssMb.toFixed(0)} | ${m.heapUsedMb?.toFixed(1) ?? "n/a"} |`);
  }
  lines.push(`| peak during the run (sampled every 10 s) | ${peakRss.toFixed(0)} | |`);
  return lines.join("\n");
}

const ok = await (process.argv.includes("--overload") ? runOverload() : main()).catch((error: unknown) => {
  console.error(error);
  return false;
});
process.exit(ok ? 0 : 1);
