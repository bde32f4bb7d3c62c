import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
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
} from "./app-under-test";
import { sendChat, someWords, type ChatAnswer } from "./chat-client";
import { checkStoredMessages, type ConfirmedMessage, type Sender, type StoredCheck } from "./stored-messages";

/**
 * `npm run load -- --overload`: what one instance serves when ten times more
 * senders arrive than it can serve (docs/decisions/096).
 *
 *   npm run load -- --overload --database-url postgresql://postgres@127.0.0.1:5432/test
 *     [--levels 1,2,4,8,16,32,64] [--step-seconds 10] [--factor 10] [--overload-seconds 30]
 *     [--burst 200] [--chat-admission-limit N] [--backend-timeout-ms 3000] [--chunk-delay-ms 15] [--no-write]
 *
 * Each sender is a signed-in account sending one message after another (a
 * new chat, then three follow-ups), each reply read to its end; refused with
 * 503 and Retry-After, it waits that long (times 0.5–1.5) and sends again.
 * 1×: the number of senders is raised step by step until the messages served
 * a second stop growing by a tenth, or a send is refused or fails; the
 * capacity is the most served a second, at the fewest senders that reach 90%
 * of it. Then ten times those senders start at once for a bounded time, and
 * last a burst of 200 sends at the same moment, each sent once. The report:
 * goodput (served a second) as a share of the capacity, how long every
 * refusal took, any other failure, and every message answered as saved
 * checked in PostgreSQL. Targets: goodput at least 80%, every refusal within
 * 100 ms.
 */

const MODEL = "load-model";
const serverDatabaseUrl = option("database-url", "");
const levels = option("levels", "1,2,4,8,16,32,64").split(",").map(Number);
const stepSeconds = Number(option("step-seconds", "10"));
const factor = Number(option("factor", "10"));
const overloadSeconds = Number(option("overload-seconds", "30"));
/** The independent test's burst: this many sends at the same moment. */
const burstSize = Number(option("burst", "200"));
/** Unset: the app's own default. */
const admissionLimit = option("chat-admission-limit", "");
/** The app's own default: the deadlines that failed every send of the burst before the limit. */
const backendTimeoutMs = option("backend-timeout-ms", "3000");
const chunkDelayMs = Number(option("chunk-delay-ms", "15"));
const writeReport = !process.argv.includes("--no-write");

const GOODPUT_TARGET = 0.8;
const REFUSAL_TARGET_MS = 100;
/** A step served at most this much more than the best before it: the instance is saturated. */
const GROWTH_TO_GO_ON = 1.1;
/** The 1× concurrency: the fewest senders that served this share of the most. */
const KNEE = 0.9;
const MESSAGES_PER_CONVERSATION = 4;
const WARM_UP_SECONDS = 3;
/** /metrics answers with this bearer token (METRICS_TOKEN). */
const METRICS_TOKEN = randomUUID().replaceAll("-", "");

interface Client extends Sender {
  cookie: string;
  conversationId: string;
  /** Messages stored in the current conversation. */
  stored: number;
}

/** What happened in one phase of the run, with a given number of senders. */
interface Tally {
  senders: number;
  seconds: number;
  /** Messages answered as saved whose reply ended within the phase. */
  served: number;
  servedMs: number[];
  firstTokenMs: number[];
  /** For every send refused by the admission limit: from the request to its answer. */
  refusedMs: number[];
  /** Refusals over the target among the sends of the phase's first second, when every sender sends at once. */
  lateInBurst: number;
  /** Anything else: another status, a reply not saved, no response. */
  failures: string[];
  /** The app server's CPU during the phase, in cores: what the shared machine left it shows here. */
  serverCores: number;
}

type Outcome =
  | { kind: "served"; answer: ChatAnswer }
  | { kind: "refused"; answer: ChatAnswer }
  | { kind: "failed"; problem: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rate = (tally: Tally) => tally.served / tally.seconds;
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

/** The machine's load average (1 min) as the run began: other work on the cores shows in every figure. */
const loadAtStart = os.loadavg()[0];

export async function runOverload(): Promise<boolean> {
  const database = serverDatabaseUrl ? await freshDatabase(serverDatabaseUrl, "overload") : undefined;
  const logFile = path.join(os.tmpdir(), `nuvara-overload-${process.pid}.log`);
  let app: AppUnderTest | undefined;
  try {
    app = await startAppUnderTest({
      name: "overload",
      models: [MODEL],
      databaseUrl: database?.url,
      echoChunkDelayMs: chunkDelayMs,
      logFile,
      env: {
        // Senders send back to back: no per-account limit or quota may refuse them.
        QUOTA_DAILY_MESSAGES: "*=unlimited;none=unlimited",
        CHAT_RATE_LIMIT_PER_MINUTE: "10000",
        BACKEND_TIMEOUT_MS: backendTimeoutMs,
        // Titles are the chat's first line: no title request per new chat to the scripted model.
        LLM_TITLE_MODEL: "off",
        METRICS_TOKEN,
        ...(admissionLimit ? { CHAT_ADMISSION_LIMIT: admissionLimit } : {}),
      },
    });
    const result = { ...(await measure(app)), refusalActionMs: refusalTimesInLog(logFile) };
    const failures = checkTargets(result);
    const text = report(result, failures, database ? "a PostgreSQL server (pool of 10)" : "embedded PGlite");
    console.log(`\n${text}\n\nserver log: ${logFile}`);
    if (writeReport) {
      writeBenchmarks(database ? "overload-postgres" : "overload-pglite", text);
      console.log("Wrote docs/benchmarks.md");
    }
    return failures.length === 0;
  } finally {
    await app?.stop();
    await database?.drop();
  }
}

async function measure(app: AppUnderTest) {
  const clients = new SenderPool(app);
  const confirmed: ConfirmedMessage[] = [];
  await phase(app, await clients.first(4), WARM_UP_SECONDS, confirmed);
  const steps = await sweep(app, clients, confirmed);
  const capacity = capacityOf(steps);
  // Every account is signed in before the overload: sign-ins would add to it.
  await clients.first(Math.max(factor * capacity.senders, burstSize));
  const overload = await watchedPhase(app, await clients.first(factor * capacity.senders), confirmed);
  // 1× again: how much of a change from the capacity is the machine's, whose other work varies.
  const again = await phase(app, await clients.first(capacity.senders), stepSeconds, confirmed);
  console.log(stepLine(`1× again, ${capacity.senders} senders`, again));
  const burst = await burstAtOnce(app, await clients.first(burstSize), confirmed);
  const stored = await checkStoredMessages(app.databaseUrl, clients.all, confirmed);
  return { steps, capacity, ...overload, again, burst, stored, confirmed: confirmed.length };
}

/** 1×: more senders step by step, until the served rate stops growing or a send is refused or fails. */
async function sweep(app: AppUnderTest, clients: SenderPool, confirmed: ConfirmedMessage[]) {
  const steps: Tally[] = [];
  for (const level of levels) {
    const tally = await phase(app, await clients.first(level), stepSeconds, confirmed);
    steps.push(tally);
    console.log(stepLine(`1× sweep, ${level} senders`, tally));
    const best = Math.max(...steps.slice(0, -1).map(rate), 0);
    if (tally.refusedMs.length > 0 || tally.failures.length > 0 || rate(tally) < best * GROWTH_TO_GO_ON) break;
  }
  return steps;
}

/** The overload phase, with the server's CPU, both event loops' delays and the refusals /metrics counted. */
async function watchedPhase(app: AppUnderTest, senders: Client[], confirmed: ConfirmedMessage[]) {
  // Reading /metrics also starts the server's event-loop delay afresh (prom-client resets it when read).
  const refusalsBefore = metricOf(await serverMetrics(app), REFUSALS);
  const ownDelay = monitorEventLoopDelay({ resolution: 10 });
  ownDelay.enable();
  const overload = await phase(app, senders, overloadSeconds, confirmed);
  ownDelay.disable();
  const after = await serverMetrics(app);
  console.log(stepLine(`${factor}×, ${senders.length} senders`, overload));
  return {
    overload,
    refusalsCounted: metricOf(after, REFUSALS) - refusalsBefore,
    delays: {
      serverP99Ms: metricOf(after, "nodejs_eventloop_lag_p99_seconds") * 1000,
      serverMaxMs: metricOf(after, "nodejs_eventloop_lag_max_seconds") * 1000,
      ownP99Ms: ownDelay.percentile(99) / 1e6,
      ownMaxMs: ownDelay.max / 1e6,
    },
  };
}

/** What the independent test did: `burstSize` sends at the same moment, each sent once. */
async function burstAtOnce(app: AppUnderTest, senders: Client[], confirmed: ConfirmedMessage[]) {
  const started = performance.now();
  const outcomes = await Promise.all(senders.map((client) => sendOnce(app.baseUrl, client, confirmed)));
  const burst = {
    sends: senders.length,
    served: 0,
    refusedMs: [] as number[],
    failures: [] as string[],
    allAnsweredMs: performance.now() - started,
  };
  for (const outcome of outcomes) {
    if (outcome.kind === "served") burst.served++;
    else if (outcome.kind === "refused") burst.refusedMs.push(outcome.answer.headersMs);
    else burst.failures.push(outcome.problem);
  }
  burst.refusedMs.sort((a, b) => a - b);
  console.log(
    `burst of ${burst.sends}: served ${burst.served}, refused ${burst.refusedMs.length}, failed ${burst.failures.length}`,
  );
  return burst;
}

type Measured = Awaited<ReturnType<typeof measure>> & { refusalActionMs: number[] };

/** How long the chat action took for each 503 it answered, from the app's log line for it (its `ms`). */
function refusalTimesInLog(logFile: string): number[] {
  const lines = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").split("\n") : [];
  return sorted(
    lines.flatMap((line) => {
      const timed = / action routes\/api\.chat 503 .* ms=([\d.]+)/.exec(line);
      return timed ? [Number(timed[1])] : [];
    }),
  );
}

/** The most served a second among the steps without a refusal or failure, and the fewest senders that reach 90% of it. */
function capacityOf(steps: Tally[]) {
  const clean = steps.filter((tally) => tally.refusedMs.length === 0 && tally.failures.length === 0);
  if (clean.length === 0) throw new Error("Even one sender was refused or failed: no capacity to measure.");
  const most = Math.max(...clean.map(rate));
  const knee = clean.find((tally) => rate(tally) >= KNEE * most)!;
  return { perSecond: most, senders: knee.senders, at: clean.find((tally) => rate(tally) === most)! };
}

/** Messages served for each second of CPU the app server had. */
function perCpuSecond(tally: Tally) {
  return tally.served / (tally.serverCores * tally.seconds);
}

function tallyRow(name: string, tally: Tally) {
  const served = sorted(tally.servedMs);
  return (
    `| ${name} | ${rate(tally).toFixed(1)} | ${percentile(served, 50).toFixed(0)} | ${percentile(served, 95).toFixed(0)} ` +
    `| ${percentile(sorted(tally.firstTokenMs), 50).toFixed(0)} | ${tally.refusedMs.length} | ${tally.failures.length} ` +
    `| ${tally.serverCores.toFixed(2)} | ${perCpuSecond(tally).toFixed(1)} |`
  );
}

/** Signed-in accounts, made as they are first needed, ten at a time. */
class SenderPool {
  readonly all: Client[] = [];

  constructor(private readonly app: AppUnderTest) {}

  async first(count: number): Promise<Client[]> {
    while (this.all.length < count) {
      const batch = Math.min(10, count - this.all.length);
      const made = await Promise.all(Array.from({ length: batch }, (_, i) => this.signIn(this.all.length + i)));
      this.all.push(...made);
    }
    return this.all.slice(0, count);
  }

  private async signIn(index: number): Promise<Client> {
    const { uid, cookie } = await this.app.signIn("", `overload-${index}`);
    return { index, uid, cookie, confirmed: 0, conversationId: randomUUID(), stored: 0 };
  }
}

/** Every sender sends back to back until `seconds` are over; the phase ends when the last reply has. */
async function phase(app: AppUnderTest, senders: Client[], seconds: number, confirmed: ConfirmedMessage[]) {
  const tally: Tally = {
    senders: senders.length,
    seconds,
    served: 0,
    servedMs: [],
    firstTokenMs: [],
    refusedMs: [],
    lateInBurst: 0,
    failures: [],
    serverCores: 0,
  };
  const cpuBefore = cpuSeconds(app.server.pid!);
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(senders.map((client) => sendUntil(app.baseUrl, client, { started, until }, tally, confirmed)));
  tally.serverCores = (cpuSeconds(app.server.pid!) - cpuBefore) / ((performance.now() - started) / 1000);
  return tally;
}

let messageNumber = 0;

async function sendUntil(
  baseUrl: string,
  client: Client,
  { started, until }: { started: number; until: number },
  tally: Tally,
  confirmed: ConfirmedMessage[],
) {
  while (performance.now() < until) {
    const sent = performance.now();
    const outcome = await sendOnce(baseUrl, client, confirmed);
    if (outcome.kind === "served") {
      if (performance.now() > until) continue;
      tally.served++;
      tally.servedMs.push(outcome.answer.totalMs);
      tally.firstTokenMs.push(outcome.answer.firstTokenMs);
    } else if (outcome.kind === "refused") {
      tally.refusedMs.push(outcome.answer.headersMs);
      if (sent - started < 1000 && outcome.answer.headersMs > REFUSAL_TARGET_MS) tally.lateInBurst++;
      await sleep(Number(outcome.answer.retryAfter) * 1000 * (0.5 + Math.random()));
    } else {
      if (tally.failures.length < 1000) tally.failures.push(outcome.problem);
      await sleep(1000);
    }
  }
}

async function sendOnce(baseUrl: string, client: Client, confirmed: ConfirmedMessage[]): Promise<Outcome> {
  const text = `Message ${++messageNumber} from sender ${client.index}: ${someWords(12)}`;
  const messageId = randomUUID();
  const { conversationId } = client;
  let answer: ChatAnswer;
  try {
    answer = await sendChat(
      baseUrl,
      client.cookie,
      chatBody(MODEL, text, { conversationId, create: client.stored === 0, messageId }),
    );
  } catch (error) {
    return { kind: "failed", problem: `no response: ${error instanceof Error ? error.message : String(error)}` };
  }
  // The admission limit's refusal: a 503 with Retry-After (a restart's is the only other, and none happens here).
  if (answer.status === 503 && answer.retryAfter !== null) return { kind: "refused", answer };
  if (answer.status !== 200) return { kind: "failed", problem: `${answer.status}: ${answer.error}` };
  if (answer.saved?.userMessageId !== messageId) {
    return { kind: "failed", problem: `reply not saved: ${answer.error ?? "no confirmation"}` };
  }
  confirmed.push({ uid: client.uid, conversationId, userMessageId: messageId, replyId: answer.saved.replyId, text });
  client.confirmed++;
  client.stored = (client.stored + 1) % MESSAGES_PER_CONVERSATION;
  if (client.stored === 0) client.conversationId = randomUUID();
  return { kind: "served", answer };
}

const REFUSALS = 'nuvara_limit_refusals_total{limit="chat_admission"}';

/** The instance's /metrics (Prometheus text). */
async function serverMetrics(app: AppUnderTest): Promise<string> {
  const response = await fetch(`${app.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  return response.text();
}

/** One sample's value, by its name with labels as printed; 0 when absent. */
function metricOf(text: string, sample: string): number {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

function stepLine(name: string, tally: Tally) {
  const refused = sorted(tally.refusedMs);
  return (
    `${name}: ${rate(tally).toFixed(1)} served/s (${tally.served} in ${tally.seconds} s), ` +
    `p50 ${percentile(sorted(tally.servedMs), 50).toFixed(0)} ms, refused ${refused.length}` +
    `${refused.length ? ` (max ${refused.at(-1)!.toFixed(0)} ms)` : ""}, failed ${tally.failures.length}`
  );
}

function checkTargets({ capacity, overload, burst, refusalsCounted, stored }: Measured) {
  const failures: string[] = [];
  const share = rate(overload) / capacity.perSecond;
  if (share < GOODPUT_TARGET) failures.push(`goodput ${(share * 100).toFixed(0)}% of the capacity (target ≥ 80%)`);
  const late = overload.refusedMs.filter((ms) => ms > REFUSAL_TARGET_MS).length;
  if (late > 0) failures.push(`${late} refusals took over ${REFUSAL_TARGET_MS} ms`);
  if (overload.failures.length > 0) failures.push(`${overload.failures.length} sends failed otherwise than refused`);
  if (burst.failures.length > 0)
    failures.push(`${burst.failures.length} sends of the burst failed otherwise than refused`);
  if (refusalsCounted !== overload.refusedMs.length)
    failures.push(`/metrics counted ${refusalsCounted} refusals, the senders saw ${overload.refusedMs.length}`);
  failures.push(...storedFailures(stored));
  return failures;
}

function storedFailures(stored: StoredCheck) {
  const failures: string[] = [];
  if (stored.lost > 0) failures.push(`${stored.lost} messages answered as saved are missing from PostgreSQL`);
  if (stored.wrong > 0) failures.push(`${stored.wrong} messages answered as saved are stored wrong`);
  if (stored.unconfirmedRows !== 0) failures.push(`${stored.unconfirmedRows} message rows beyond the saved exchanges`);
  if (stored.quotaMismatches > 0) failures.push(`${stored.quotaMismatches} senders whose usage count is wrong`);
  if (stored.heldReservations) failures.push(`${stored.heldReservations} quota reservations still held`);
  return failures;
}

function report(result: Measured, failures: string[], databaseKind: string) {
  const { steps, capacity, overload, again, burst, stored } = result;
  const refused = sorted(overload.refusedMs);
  const share = rate(overload) / capacity.perSecond;
  const within = refused.filter((ms) => ms <= REFUSAL_TARGET_MS).length;
  const pass = (ok: boolean) => (ok ? "pass" : "**FAIL**");
  const args = argumentsShown();
  const lines = [
    `## Overload: ${factor}× the senders one instance serves, ${databaseKind}`,
    "",
    `Run ${new Date().toISOString()} ${machineLine()}, load average ${loadAtStart.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end: \`npm run load -- ${args}\`.`,
    "",
    `Each sender is a signed-in account sending one message after another to POST /api/chat (a new chat, then ` +
      `${MESSAGES_PER_CONVERSATION - 1} follow-ups), each reply read to its end; the scripted model echoes the message ` +
      `word by word (${chunkDelayMs} ms a word, about 17 words). A sender refused with 503 and Retry-After waits that long ` +
      `(times 0.5–1.5) and sends again. 1×: the senders are raised step by step (${stepSeconds} s each) until the messages ` +
      `served a second grow by less than a tenth, or a send is refused or fails; the capacity is the most served a second, ` +
      `at the fewest senders that reach ${KNEE * 100}% of it. Then ${factor} times those senders start at once for ` +
      `${overloadSeconds} s. Last, ${burstSize} sends at the same moment from as many accounts, each sent once. Served: answered as saved (the stream's data-saved part) within the phase. The app runs with ` +
      `remix-serve in production mode on loopback (BACKEND_TIMEOUT_MS=${backendTimeoutMs}, CHAT_ADMISSION_LIMIT=` +
      `${admissionLimit || "default"}, per-account limits out of reach), the load generator, the scripted model, the ` +
      `emulators and the database sharing the same ${os.cpus().length} cores.`,
    "",
    "| senders | served/s | p50 ms | p95 ms | first token p50 ms | refused | failed | app server's CPU (cores) | served a CPU-second |",
    "|---|---|---|---|---|---|---|---|---|",
    ...steps.map((tally) => tallyRow(String(tally.senders), tally)),
    tallyRow(`**${overload.senders} (${factor}×)**`, overload),
    tallyRow(`${again.senders} (1× again, after)`, again),
    "",
    `Capacity (1×): ${capacity.perSecond.toFixed(1)} messages served a second, from ${capacity.senders} senders ` +
      `(${rate(again).toFixed(1)} a second from as many after the ${factor}× phase). The machine's other work takes ` +
      `cores from the app server unevenly (its CPU column): served per CPU-second of the app server, the ${factor}× phase ` +
      `did ${((perCpuSecond(overload) / perCpuSecond(capacity.at)) * 100).toFixed(0)}% of the capacity's.`,
    "",
    "| check | result | |",
    "|---|---|---|",
    `| goodput at ${factor}× (${overload.senders} senders) as a share of the capacity | ${(share * 100).toFixed(0)}% (${rate(overload).toFixed(1)}/s) | ${pass(share >= GOODPUT_TARGET)} |`,
    `| refusals answered within ${REFUSAL_TARGET_MS} ms | ${within} of ${refused.length} (p50 ${percentile(refused, 50).toFixed(1)} ms, p99 ${percentile(refused, 99).toFixed(1)} ms, max ${(refused.at(-1) ?? NaN).toFixed(1)} ms; of the later ones, ${overload.lateInBurst} sent in the first second, when all ${overload.senders} senders send at once) | ${pass(within === refused.length)} |`,
    `| sends that failed otherwise (another status, a reply not saved, no response) | ${overload.failures.length}${overload.failures.length ? `: ${[...new Set(overload.failures)].slice(0, 3).join("; ")}` : ""} | ${pass(overload.failures.length === 0)} |`,
    `| a burst of ${burst.sends} sends at once, each sent once: served, refused, failed otherwise | ${burst.served}, ${burst.refusedMs.length} (p50 ${percentile(burst.refusedMs, 50).toFixed(1)} ms, max ${(burst.refusedMs.at(-1) ?? NaN).toFixed(1)} ms), ${burst.failures.length}${burst.failures.length ? `: ${[...new Set(burst.failures)].slice(0, 3).join("; ")}` : ""}; all answered in ${(burst.allAnsweredMs / 1000).toFixed(1)} s | ${pass(burst.failures.length === 0)} |`,
    `| refusals counted on /metrics against those the senders saw | ${result.refusalsCounted} / ${refused.length} | ${pass(result.refusalsCounted === refused.length)} |`,
    `| messages answered as saved missing from PostgreSQL (of ${result.confirmed}) | ${stored.lost} | ${pass(stored.lost === 0)} |`,
    `| stored wrong (content, owner, reply status), or rows beyond the saved exchanges | ${stored.wrong}, ${stored.unconfirmedRows} | ${pass(stored.wrong === 0 && stored.unconfirmedRows === 0)} |`,
    `| senders whose usage_daily.messages ≠ messages saved; reservations still held | ${stored.quotaMismatches}; ${stored.heldReservations ?? "n/a"} | ${pass(stored.quotaMismatches === 0 && !stored.heldReservations)} |`,
    "",
    failures.length === 0 ? "All checks passed." : `Failed: ${failures.join("; ")}.`,
    "",
    `During the ${factor}× phase the app server's event loop's ` +
      `delay was p99 ${result.delays.serverP99Ms.toFixed(0)} ms, max ${result.delays.serverMaxMs.toFixed(0)} ms, and the ` +
      `load generator's (whose clock times the refusals) p99 ${result.delays.ownP99Ms.toFixed(0)} ms, max ` +
      `${result.delays.ownMaxMs.toFixed(0)} ms. The chat action itself answered each 503 of the run in at most ` +
      `${(result.refusalActionMs.at(-1) ?? NaN).toFixed(1)} ms (p99 ${percentile(result.refusalActionMs, 99).toFixed(1)} ms, ` +
      `from its log lines): the rest of a refusal's time is spent before the action — the HTTP stack, ` +
      `these two event loops, and waiting for the machine's cores.`,
  ];
  return lines.join("\n");
}
