import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import type { Db } from "~/db/client.server";
import { usageReport } from "~/data/admin-usage.server";
import { listConversations } from "~/data/conversations.server";
import { ratingsFor } from "~/data/feedback.server";
import { countNewMessages, INBOX_PAGE_SIZE, listInbox } from "~/data/inbox.server";
import { getConversationWithMessages } from "~/data/messages.server";
import {
  freshDatabase,
  option,
  percentile,
  startAppUnderTest,
  writeBenchmarks,
  type AppUnderTest,
} from "./app-under-test";
import { explainPages, type ExplainedStatement } from "./scale-explain";
import { scaleReport, type PageFigures, type StageFigures } from "./scale-report";
import {
  countRows,
  growTo,
  LONG_CHAT_MESSAGES,
  longConversationId,
  SEARCH_WORD,
  stageSize,
  type SeedContext,
  type StageSize,
} from "./scale-seed";

/**
 * `npm run bench -- --scale`: how each page behaves as the work grows. One
 * remix-serve instance on a fresh database on the PostgreSQL server (dropped
 * at the end, also when the run fails or is interrupted), seeded with SQL
 * (scripts/perf/scale-seed.ts) in three cumulative stages: a real signed-in
 * user holds 100, then 1,000, then 10,000 chats (one of them 500 messages
 * long), and the deployment grows in proportion to 1,000 users, about
 * 1,000,000 messages, 100,000 admin inbox items and a month of usage rows per
 * user. At each stage every page is first checked to read the seeded rows
 * (its loader's JSON), then requested one request after another and at 10
 * connections. At the largest stage the statements behind every page are
 * explained, the slowest page's first (scripts/perf/scale-explain.ts). Prints the figures and
 * writes "Scale curves" to docs/benchmarks.md; exits 1 when a page's p95
 * grows more than 2× from the first stage to the last.
 *
 *   npm run bench -- --scale [--requests 30] [--concurrent-requests 50] [--max-minutes 90]
 *                    [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
const serverDatabaseUrl = option("database-url", "postgresql://postgres@127.0.0.1:5432/test");
const requestCount = boundedCount("requests", 30);
const concurrentRequests = boundedCount("concurrent-requests", 50);
/** The whole run's limit: past it the bench cleans up and exits 1. */
const maxMinutes = Number(option("max-minutes", "90"));
const WARM_UP_REQUESTS = 5;
const CONNECTIONS = 10;
/** The heavy user's chats at each stage; the rest of the deployment follows (scale-seed.ts stageSize). */
const STAGES = [100, 1_000, 10_000];
const REQUEST_TIMEOUT_MS = 60_000;
const MODEL = "bench-model";

/** A count from the command line, kept between 1 and 1,000 so every loop ends. */
function boundedCount(name: string, fallback: number): number {
  const value = Number(option(name, String(fallback)));
  if (!Number.isInteger(value) || value < 1 || value > 1_000) throw new Error(`--${name} takes 1 to 1,000.`);
  return value;
}

/** The bench talks to this machine only: the database server must be on loopback. */
function requireLoopback(url: string) {
  const host = new URL(url).hostname;
  if (!["127.0.0.1", "localhost", "[::1]", "::1"].includes(host)) {
    throw new Error(`--scale seeds a million rows: give it a PostgreSQL server on loopback, not ${host}.`);
  }
}

interface Who {
  heavyUid: string;
  userCookie: string;
  adminCookie: string;
  longChatId: string;
}

/** A page as measured: its address, who asks, what its loader's JSON must hold, and the data calls behind it. */
interface Page {
  name: string;
  path: (who: Who) => string;
  as: "user" | "admin";
  /** The loader's route id for ?_data=, or none for a resource route (its body is checked). */
  dataRoute?: string;
  /** What is wrong with the page's data at this size, or undefined. */
  check: (data: unknown, size: StageSize) => string | undefined;
  /** The app's own data calls behind the page, for EXPLAIN. */
  calls: (db: Db, who: Who) => Promise<unknown>;
}

interface ListData {
  conversations: Array<{ id: string }>;
}
interface ConversationData {
  messages: Array<{ id: string }>;
  conversation: { leafId: string | null };
}
interface InboxData {
  page: { messages: unknown[] };
}
interface UsageData {
  days: unknown[];
  top: unknown[];
}

const expect = (what: string, got: number, wanted: number) =>
  got === wanted ? undefined : `${what}: ${got}, expected ${wanted}`;

/** The heavy user's chats with the search word: chat 7, 107, 207… (scale-seed.ts messageText). */
const historyMatches = (size: StageSize) =>
  size.heavyConversations < 7 ? 0 : Math.floor((size.heavyConversations - 7) / 100) + 1;

/** Inbox items with the search word (7, 1007…) that the default view lists (not archived: i % 3 ≠ 2). */
function inboxMatches(size: StageSize) {
  let count = 0;
  for (let item = 7; item <= size.inbox; item += 1000) if (item % 3 !== 2) count += 1;
  return count;
}

/** listConversations' default limit (app/data/conversations.server.ts). */
const SIDEBAR_LIMIT = 200;

const PAGES: Page[] = [
  {
    name: "/nuvara (conversation list)",
    path: () => "/nuvara",
    as: "user",
    dataRoute: "routes/nuvara",
    check: (data, size) =>
      expect("chats listed", (data as ListData).conversations.length, Math.min(SIDEBAR_LIMIT, size.heavyConversations)),
    calls: (db, who) => listConversations(db, who.heavyUid),
  },
  {
    name: `/nuvara?q=${SEARCH_WORD} (history search)`,
    path: () => `/nuvara?q=${SEARCH_WORD}`,
    as: "user",
    dataRoute: "routes/nuvara",
    check: (data, size) => expect("chats found", (data as ListData).conversations.length, historyMatches(size)),
    calls: (db, who) => listConversations(db, who.heavyUid, { search: SEARCH_WORD }),
  },
  {
    name: `/nuvara/<id> (${LONG_CHAT_MESSAGES} messages)`,
    path: (who) => `/nuvara/${who.longChatId}`,
    as: "user",
    dataRoute: "routes/nuvara.$conversationId",
    check: (data) => {
      const { messages, conversation } = data as ConversationData;
      if (conversation.leafId !== messages.at(-1)?.id) return "the branch shown is not the last message";
      return expect("messages", messages.length, LONG_CHAT_MESSAGES);
    },
    calls: async (db, who) => {
      const found = await getConversationWithMessages(db, who.heavyUid, who.longChatId);
      const replies = (found?.messages ?? []).filter((row) => row.role === "assistant").map((row) => row.id);
      return ratingsFor(db, who.heavyUid, replies);
    },
  },
  {
    name: "/admin/messages",
    path: () => "/admin/messages",
    as: "admin",
    dataRoute: "routes/admin.messages",
    check: (data) => expect("rows", (data as InboxData).page.messages.length, INBOX_PAGE_SIZE),
    // The nav's badge of new messages is counted on every admin page (app/data/inbox.server.ts).
    calls: async (db) => [await listInbox(db, { status: "inbox" }), await countNewMessages(db)],
  },
  {
    name: `/admin/messages?q=${SEARCH_WORD}`,
    path: () => `/admin/messages?q=${SEARCH_WORD}`,
    as: "admin",
    dataRoute: "routes/admin.messages",
    check: (data, size) =>
      expect("rows found", (data as InboxData).page.messages.length, Math.min(INBOX_PAGE_SIZE, inboxMatches(size))),
    calls: (db) => listInbox(db, { status: "inbox", q: SEARCH_WORD }),
  },
  {
    name: "/admin/usage",
    path: () => "/admin/usage",
    as: "admin",
    dataRoute: "routes/admin.usage",
    check: (data) => {
      const { days, top } = data as UsageData;
      return expect("days", days.length, 30) ?? expect("top users", top.length, 10);
    },
    calls: (db) => usageReport(db),
  },
  {
    name: "/admin/usage.csv",
    path: () => "/admin/usage.csv",
    as: "admin",
    check: (body) => (String(body).startsWith("day,active_users,") ? undefined : "not the usage CSV"),
    // The same report as /admin/usage: explained there.
    calls: async () => undefined,
  },
];

const cookieFor = (page: Page, who: Who) => (page.as === "admin" ? who.adminCookie : who.userCookie);

/** Answers other than 200, by status ("timeout" or "error" when there was none). */
class Failures {
  private readonly counts = new Map<string, number>();
  note(status: number) {
    if (status !== 200) this.add(String(status), 1);
  }
  add(kind: string, count: number) {
    if (count > 0) this.counts.set(kind, (this.counts.get(kind) ?? 0) + count);
  }
  merge(other: Failures): Failures {
    for (const [kind, count] of other.counts) this.add(kind, count);
    return this;
  }
  toString() {
    return [...this.counts].map(([kind, count]) => `${count} × ${kind}`).join(", ") || "0";
  }
}

async function request(app: AppUnderTest, url: string, cookie: string) {
  const response = await fetch(`${app.baseUrl}${url}`, {
    headers: { cookie },
    redirect: "manual",
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = await response.text();
  return { ok: response.status === 200, status: response.status, body };
}

/** The page reads the seeded rows: its loader's JSON (or the CSV) holds what this stage seeded. */
async function checkPage(app: AppUnderTest, page: Page, who: Who, size: StageSize) {
  const url = page.path(who);
  const dataUrl = page.dataRoute
    ? `${url}${url.includes("?") ? "&" : "?"}_data=${encodeURIComponent(page.dataRoute)}`
    : url;
  const { ok, status, body } = await request(app, dataUrl, cookieFor(page, who));
  if (!ok) throw new Error(`${page.name} answered ${status}: ${body.slice(0, 300)}`);
  const problem = page.check(page.dataRoute ? JSON.parse(body) : body, size);
  if (problem) throw new Error(`${page.name} does not show the seeded data (${problem}).`);
}

/** Warm-up, then `requestCount` requests one after another: each one's time to the end of its body. */
async function timeOneByOne(app: AppUnderTest, url: string, cookie: string) {
  for (let i = 0; i < WARM_UP_REQUESTS; i++) await request(app, url, cookie);
  const times: number[] = [];
  const errors = new Failures();
  for (let i = 0; i < requestCount; i++) {
    const started = performance.now();
    const { status } = await request(app, url, cookie);
    times.push(performance.now() - started);
    errors.note(status);
  }
  return { times: times.sort((a, b) => a - b), errors };
}

/** `concurrentRequests` requests over 10 connections (autocannon stops after that many). */
async function timeConcurrently(app: AppUnderTest, url: string, cookie: string) {
  const times: number[] = [];
  const errors = new Failures();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(
      {
        url: `${app.baseUrl}${url}`,
        connections: CONNECTIONS,
        amount: concurrentRequests,
        timeout: REQUEST_TIMEOUT_MS / 1000,
        headers: { cookie },
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    run.on("response", (_client, status, _bytes, responseTime) => {
      errors.note(status);
      times.push(responseTime);
    });
  });
  errors.add("timeout", result.timeouts);
  errors.add("error", result.errors - result.timeouts);
  return { times: times.sort((a, b) => a - b), errors };
}

async function measurePage(app: AppUnderTest, page: Page, who: Who): Promise<PageFigures> {
  const url = page.path(who);
  const cookie = cookieFor(page, who);
  const oneByOne = await timeOneByOne(app, url, cookie);
  const concurrent = await timeConcurrently(app, url, cookie);
  const figures = {
    page: page.name,
    p50: percentile(oneByOne.times, 50),
    p95: percentile(oneByOne.times, 95),
    concurrentP95: percentile(concurrent.times, 95),
    errors: oneByOne.errors.merge(concurrent.errors).toString(),
  };
  console.log(
    `  ${page.name.padEnd(40)} p50 ${figures.p50.toFixed(1).padStart(7)}  p95 ${figures.p95.toFixed(1).padStart(7)} ms` +
      `  p95 at ${CONNECTIONS} connections ${figures.concurrentP95.toFixed(0).padStart(6)} ms  errors ${figures.errors}`,
  );
  return figures;
}

/** Grows the data to the stage's size, checks every page reads it, then times every page. */
async function runStage(
  app: AppUnderTest,
  client: pg.Client,
  context: SeedContext,
  who: Who,
  before: StageSize,
  size: StageSize,
): Promise<StageFigures> {
  console.log(`\nStage: the heavy user holds ${size.heavyConversations.toLocaleString("en-US")} chats; seeding…`);
  const seedMs = await growTo(client, context, before, size);
  const rows = await countRows(client);
  console.log(
    `  seeded in ${(seedMs / 1000).toFixed(1)} s: ${rows.users} users, ${rows.conversations} chats, ` +
      `${rows.messages} messages, ${rows.inbox} inbox items, ${rows.usage} usage rows`,
  );
  for (const page of PAGES) await checkPage(app, page, who, size);
  const pages: PageFigures[] = [];
  for (const page of PAGES) pages.push(await measurePage(app, page, who));
  return { size, rows, seedMs, pages };
}

/** Every page's statements, the slowest page's first (by p95 at the largest stage). */
async function explainPagesAtLargest(databaseUrl: string, stages: StageFigures[], who: Who) {
  const p95 = (page: Page) => stages.at(-1)!.pages.find((f) => f.page === page.name)!.p95;
  const slowestFirst = [...PAGES].sort((a, b) => p95(b) - p95(a));
  const explained: ExplainedStatement[] = await explainPages(
    databaseUrl,
    slowestFirst.map((page) => ({ page: page.name, calls: (db: Db) => page.calls(db, who) })),
  );
  for (const statement of explained) {
    console.log(`\n${statement.page}: ${statement.summary} (${statement.executionMs.toFixed(1)} ms)`);
    console.log(statement.tree);
  }
  return explained;
}

/** Stops the app and drops the scratch database once, whichever way the run ends. */
function cleanUpOnce(steps: () => Promise<void>) {
  let done: Promise<void> | undefined;
  return () => (done ??= steps().catch((error: unknown) => console.error("Cleaning up failed:", error)));
}

export async function benchScale(): Promise<boolean> {
  requireLoopback(serverDatabaseUrl);
  const loadAtStart = os.loadavg()[0];
  const database = await freshDatabase(serverDatabaseUrl, "scale");
  let app: AppUnderTest | undefined;
  const client = new pg.Client({ connectionString: database.url });
  const cleanUp = cleanUpOnce(async () => {
    await client.end().catch(() => undefined);
    await app?.stop();
    await database.drop();
  });
  const stopNow = (code: number) => void cleanUp().finally(() => process.exit(code));
  const onSignal = () => stopNow(130);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const watchdog = setTimeout(() => {
    console.error(`--scale ran for ${maxMinutes} minutes: stopping.`);
    stopNow(1);
  }, maxMinutes * 60_000);
  try {
    app = await startAppUnderTest({
      name: "scale",
      models: [MODEL],
      databaseUrl: database.url,
      logFile: path.join(os.tmpdir(), `nuvara-bench-scale-${process.pid}.log`),
      env: { LOG_LEVEL: "warn" },
    });
    const user = await app.signIn("", "scale-heavy");
    const admin = await app.signIn("admin", "scale-admin");
    await client.connect();
    // Seeded times count back from one instant, so every stage's rows fall in the same 30 days.
    const context: SeedContext = { heavyUid: user.uid, now: new Date() };
    const who: Who = {
      heavyUid: user.uid,
      userCookie: user.cookie,
      adminCookie: admin.cookie,
      longChatId: await longConversationId(client, context),
    };
    const stages: StageFigures[] = [];
    let before: StageSize = { users: 0, heavyConversations: 0, inbox: 0 };
    for (const heavyConversations of STAGES) {
      const size = stageSize(heavyConversations);
      stages.push(await runStage(app, client, context, who, before, size));
      before = size;
    }
    const explained = await explainPagesAtLargest(database.url, stages, who);
    const { text, met } = scaleReport({
      serverVersion: (await client.query<{ server_version: string }>("show server_version")).rows[0].server_version,
      stages,
      explained,
      loads: [loadAtStart, os.loadavg()[0]],
      requests: {
        warmUp: WARM_UP_REQUESTS,
        oneByOne: requestCount,
        concurrent: concurrentRequests,
        connections: CONNECTIONS,
      },
    });
    console.log(`\n${text}\n`);
    if (!process.argv.includes("--no-write")) writeBenchmarks("scale", text);
    return met;
  } finally {
    clearTimeout(watchdog);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await cleanUp();
  }
}
