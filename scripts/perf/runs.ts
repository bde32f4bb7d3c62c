import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { UIMessageChunk } from "ai";
import { readChunks } from "~/components/chat/ui-message-stream";
import {
  chatBody,
  freshDatabase,
  machineLine,
  option,
  percentile,
  startAppUnderTest,
  writeBenchmarks,
} from "./app-under-test";

/**
 * `npm run bench -- --runs`: replies that survive (docs/decisions/070),
 * with two remix-serve instances A and B on a fresh database on the PostgreSQL
 * server and the scripted model echoing a `--words`-word reply at one word per
 * `--word-ms` ms. Writes the figures to docs/benchmarks.md ("Replies that
 * survive (runs)").
 *
 * 1. Reattach latency: `--replies` replies started on A one after another,
 *    each followed on B (GET /api/runs/<id>) as soon as A's first chunk names
 *    its run. The bench LISTENs on `nuvara_runs` itself and notes when each
 *    batch's notification arrives; the batches' chunk counts (read from
 *    reply_run_events once the reply has ended) tell which chunk received on
 *    B ends which batch. Latency of a batch: B's last chunk of it minus its
 *    notification here. Batches notified before B's response headers came
 *    (replayed, not live) are left out.
 * 2. PostgreSQL writes per reply: 1 insert + batches + 1 end (+ lease
 *    renewals, counted from pg_stat_user_tables' n_tup_ins/n_tup_upd deltas
 *    on reply_runs and reply_run_events), over the reply's streaming time
 *    (reply_runs.started_at to ended_at).
 * 3. Tabs closed and reopened: `--reopens` replies, `--parallel` at a time,
 *    started on A or B in turn, read for a few words, the request aborted,
 *    then after 0–500 ms reopened on the other instance and read to its end:
 *    its text and `data-saved` chunk, the stored messages and the user's
 *    usage_daily count are checked.
 *
 *
 * With `--poll` the instances are told DATABASE_URL is a transaction pooler
 * and given no direct URL (docs/decisions/097): nothing LISTENs, they watch
 * the runs' rows instead. The app then sends no notification per batch, so
 * the bench adds a trigger to its own database that does, at the same
 * moment (a batch's commit); the figures go to their own section.
 *
 *   npm run bench -- --runs [--poll] [--replies 20] [--reopens 20] [--parallel 4] [--words 60] [--word-ms 20]
 *                   [--database-url postgresql://postgres@127.0.0.1:5432/test] [--no-write]
 */
const serverDatabaseUrl = option("database-url", "postgresql://postgres@127.0.0.1:5432/test");
const replyCount = Number(option("replies", "20"));
const reopenCount = Number(option("reopens", "20"));
const parallel = Number(option("parallel", "4"));
const words = Number(option("words", "60"));
const wordMs = Number(option("word-ms", "20"));
const polled = process.argv.includes("--poll");
const MODEL = "bench-model";
/** The model's echo: "You said: " and the user's words. */
const ECHO_PREFIX = "You said: ";
const NOTICE_CHANNEL = "nuvara_runs";
/** The flush interval of app/chat/runs/local-run.server.ts (FLUSH_MS). */
const FLUSH_MS = 250;

interface Received {
  chunk: UIMessageChunk;
  /** performance.now() when its bytes were read. */
  at: number;
}

/** A UI message stream (SSE) as chunks with their arrival time, read as they come (the app's own reader). */
async function* sse(response: Response): AsyncGenerator<Received> {
  if (!response.body) throw new Error(`no body (status ${response.status})`);
  const body = response.body;
  try {
    for await (const chunk of readChunks(body)) yield { chunk, at: performance.now() };
  } finally {
    await body.cancel().catch(() => undefined);
  }
}

/** Reads on until `until` holds for a chunk (that chunk included); all of the rest without it. */
async function readOn(stream: AsyncGenerator<Received>, into: Received[], until?: (chunk: UIMessageChunk) => boolean) {
  for (;;) {
    const next = await stream.next();
    if (next.done) return false;
    into.push(next.value);
    if (until?.(next.value.chunk)) return true;
  }
}

const textOf = (received: Received[]) =>
  received.flatMap(({ chunk }) => (chunk.type === "text-delta" ? [chunk.delta] : [])).join("");
const dataOf = <T>(received: Received[], name: string) => {
  const found = received.find(({ chunk }) => chunk.type === `data-${name}`)?.chunk;
  return found && "data" in found ? (found.data as T) : undefined;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A user message of `words - 2` distinct words, so the echo is `words` words long and known. */
function userText(tag: string) {
  return Array.from({ length: Math.max(1, words - 2) }, (_, index) => `${tag}w${index + 1}`).join(" ");
}

export async function benchRuns(): Promise<boolean> {
  for (const [name, value] of Object.entries({
    replies: replyCount,
    reopens: reopenCount,
    parallel,
    words,
    "word-ms": wordMs,
  })) {
    if (!Number.isInteger(value) || value < (name === "word-ms" ? 0 : 1))
      throw new Error(`--${name} takes a whole number (got ${value}).`);
  }
  console.log(
    `Replies that survive: 2 instances, ${replyCount} replies followed from the other instance, ${reopenCount} closed and reopened ` +
      `(${parallel} at a time); ${words} words at ${wordMs} ms each…`,
  );
  const database = await freshDatabase(serverDatabaseUrl, "runs");
  const logFile = path.join(os.tmpdir(), `nuvara-bench-runs-${process.pid}.log`);
  let app: Awaited<ReturnType<typeof startAppUnderTest>> | undefined;
  const sql = new pg.Client({ connectionString: database.url });
  const listener = new pg.Client({ connectionString: database.url });
  let passed = false;
  try {
    app = await startAppUnderTest({
      name: "runs",
      models: [MODEL],
      databaseUrl: database.url,
      instances: 2,
      echoChunkDelayMs: wordMs,
      logFile,
      env: {
        LOG_LEVEL: "warn",
        CHAT_RATE_LIMIT_PER_MINUTE: "10000",
        ...(polled ? { DATABASE_POOL_MODE: "transaction" } : {}),
      },
    });
    await sql.connect();
    await listener.connect();
    if (polled) await notifyBatchesFromTrigger(sql);
    /** run id → batch seq → when its notification arrived here. */
    const notified = new Map<string, Map<number, number>>();
    listener.on("notification", (message) => {
      const at = performance.now();
      try {
        const notice = JSON.parse(message.payload ?? "") as { run?: string; kind?: string; seq?: number };
        if (notice.kind !== "events" || !notice.run || typeof notice.seq !== "number") return;
        let seqs = notified.get(notice.run);
        if (!seqs) notified.set(notice.run, (seqs = new Map()));
        seqs.set(notice.seq, at);
      } catch {
        // not ours
      }
    });
    await listener.query(`listen ${NOTICE_CHANNEL}`);

    const [a, b] = app.baseUrls;
    const loadAtStart = os.loadavg()[0];
    const before = await tableCounts(sql);
    const following = await app.signIn("premium", "runs-follow");
    const reopening = await app.signIn("premium", "runs-reopen");
    const post = (baseUrl: string, cookie: string, body: string, signal?: AbortSignal) =>
      fetch(`${baseUrl}/api/chat`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: baseUrl, cookie },
        body,
        signal,
      });
    const early404s: string[] = [];
    /**
     * GET /api/runs/<id>; a 404 (the run's row not yet there) is noted and retried. `since`: when
     * the client learnt the run's id (its data-run chunk).
     */
    const follow = async (baseUrl: string, cookie: string, runId: string, since: number, what: string) => {
      const first = performance.now();
      let said: string | undefined;
      for (let attempt = 0; ; attempt++) {
        const response = await fetch(`${baseUrl}/api/runs/${runId}`, { headers: { cookie } });
        if (response.status !== 404 || attempt >= 50) {
          if (attempt > 0) {
            early404s.push(
              `${what}: first asked ${(first - since).toFixed(0)} ms after the client had its data-run chunk, ` +
                `${attempt} × 404 (${said}), then ${response.status} ${(performance.now() - first).toFixed(0)} ms later`,
            );
            console.log(`  ${early404s.at(-1)}`);
          }
          return response;
        }
        said ??= (await response.text()).slice(0, 120);
        await sleep(20);
      }
    };
    /** Starts a reply and reads its stream up to the chunk naming its run. */
    const start = async (baseUrl: string, cookie: string, text: string, signal?: AbortSignal) => {
      const body = chatBody(MODEL, text);
      const response = await post(baseUrl, cookie, body, signal);
      if (!response.ok) throw new Error(`POST /api/chat answered ${response.status}: ${await response.text()}`);
      const stream = sse(response);
      const received: Received[] = [];
      await readOn(stream, received, (chunk) => chunk.type === "data-run");
      const run = dataOf<{ runId: string; conversationId: string }>(received, "run");
      if (!run) throw new Error("the reply's stream did not name its run");
      return { ...run, stream, received, namedAt: received.at(-1)!.at, expected: `${ECHO_PREFIX}${text}` };
    };

    /**
     * The user's session known to both instances (their caches keep it up to 30 s), and the runs'
     * route and queries warm: the figures are of following a run, not of a sign-in check.
     */
    const warmUp = async (cookie: string) => {
      for (const baseUrl of [a, b]) {
        const response = await fetch(`${baseUrl}/api/runs/00000000-0000-4000-8000-000000000000`, {
          headers: { cookie },
        });
        if (response.status !== 404) throw new Error(`warming up: GET /api/runs answered ${response.status}`);
        await response.body?.cancel();
      }
    };
    await warmUp(following.cookie);

    // ---- 1. reattach latency ----------------------------------------------------------------
    const latencies: number[] = [];
    let replayed = 0;
    let unnotified = 0;
    let followErrors = 0;
    const runIds: string[] = [];
    for (let i = 0; i < replyCount; i++) {
      const reply = await start(a, following.cookie, userText(`f${i + 1}`));
      runIds.push(reply.runId);
      const response = await follow(b, following.cookie, reply.runId, reply.namedAt, `followed reply ${i + 1}`);
      const headersAt = performance.now();
      if (!response.ok) throw new Error(`GET /api/runs on B answered ${response.status}: ${await response.text()}`);
      const onB: Received[] = [];
      await Promise.all([readOn(reply.stream, reply.received), readOn(sse(response), onB)]);
      const { rows } = await sql.query<{ seq: number; chunks: number }>(
        "select seq, jsonb_array_length(chunks) as chunks from reply_run_events where run_id = $1 order by seq",
        [reply.runId],
      );
      const total = rows.reduce((sum, row) => sum + row.chunks, 0);
      const saved = dataOf<{ status: string }>(onB, "saved");
      if (total !== onB.length || textOf(onB) !== reply.expected || saved?.status !== "completed") {
        followErrors++;
        console.log(
          `  reply ${i + 1}: B read ${onB.length} chunks of ${total} stored, saved ${saved?.status}, text ${textOf(onB) === reply.expected ? "whole" : "wrong"}`,
        );
        continue;
      }
      let index = 0;
      const mine: number[] = [];
      for (const row of rows) {
        index += row.chunks;
        const notifiedAt = notified.get(reply.runId)?.get(row.seq);
        if (notifiedAt === undefined) unnotified++;
        else if (notifiedAt < headersAt) replayed++;
        else mine.push(onB[index - 1].at - notifiedAt);
      }
      latencies.push(...mine);
      console.log(
        `  reply ${String(i + 1).padStart(2)}: ${rows.length} batches, ${total} chunks; B behind the notification by ` +
          `${mine.map((ms) => ms.toFixed(0)).join(", ")} ms${rows.length > mine.length ? ` (${rows.length - mine.length} replayed)` : ""}`,
      );
    }
    latencies.sort((x, y) => x - y);

    // ---- 3. tabs closed and reopened on the other instance -------------------------------
    interface Reopened {
      ok: boolean;
      conversationId: string;
      expected: string;
      firstChunkMs: number;
      problem?: string;
    }
    const reopened: Reopened[] = [];
    await warmUp(reopening.cookie);
    let next = 0;
    const worker = async () => {
      while (next < reopenCount) {
        const i = next++;
        const [here, there] = i % 2 === 0 ? [a, b] : [b, a];
        const tab = new AbortController();
        const reply = await start(here, reopening.cookie, userText(`r${i + 1}`), tab.signal);
        runIds.push(reply.runId);
        await readOn(
          reply.stream,
          reply.received,
          () => reply.received.filter(({ chunk }) => chunk.type === "text-delta").length >= 3,
        );
        tab.abort(); // the tab is closed
        await reply.stream.return(undefined).catch(() => undefined);
        const waitMs = Math.random() * 500;
        await sleep(waitMs);
        const asked = performance.now();
        const response = await follow(there, reopening.cookie, reply.runId, reply.namedAt, `reopened reply ${i + 1}`);
        const headersMs = performance.now() - asked;
        const chunks: Received[] = [];
        if (response.ok) await readOn(sse(response), chunks);
        const saved = dataOf<{ status: string }>(chunks, "saved");
        const text = textOf(chunks);
        const problem = !response.ok
          ? `reopening answered ${response.status}`
          : text !== reply.expected
            ? `text differs (${text.length} of ${reply.expected.length} characters)`
            : saved?.status !== "completed"
              ? `saved: ${saved?.status ?? "none"}`
              : undefined;
        reopened.push({
          ok: !problem,
          conversationId: reply.conversationId,
          expected: reply.expected,
          firstChunkMs: (chunks[0]?.at ?? NaN) - asked,
          problem,
        });
        const firstBatch = notified.get(reply.runId)?.get(1);
        console.log(
          `  reopened reply ${String(i + 1).padStart(2)} on ${there === a ? "A" : "B"} after ${waitMs.toFixed(0)} ms: headers in ${headersMs.toFixed(0)} ms, ` +
            `first chunk in ${reopened.at(-1)!.firstChunkMs.toFixed(0)} ms (first batch notified ${firstBatch === undefined ? "never" : `${(firstBatch - asked).toFixed(0)} ms`} from the request)` +
            `${problem ? `: ${problem}` : ""}`,
        );
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    // What is stored: 2 messages per conversation, the reply whole and completed.
    for (const reply of reopened) {
      const { rows } = await sql.query<{ role: string; status: string | null; content: string }>(
        "select role, status, content from messages where conversation_id = $1 order by seq",
        [reply.conversationId],
      );
      const stored =
        rows.length === 2 &&
        rows[1].role === "assistant" &&
        rows[1].status === "completed" &&
        rows[1].content === reply.expected;
      if (!stored) {
        reply.problem = `${reply.problem ? `${reply.problem}; ` : ""}stored: ${rows.map((row) => `${row.role}/${row.status}/${row.content.length}`).join(", ")}`;
        reply.ok = false;
        console.log(`  reopened reply in ${reply.conversationId}: ${reply.problem}`);
      }
    }
    const lost = reopened.filter((reply) => !reply.ok).length;
    const counted = async (uid: string) =>
      Number(
        (
          await sql.query<{ messages: string }>(
            "select coalesce(sum(messages), 0) as messages from usage_daily where uid = $1",
            [uid],
          )
        ).rows[0].messages,
      );
    const quota = {
      counted: (await counted(following.uid)) + (await counted(reopening.uid)),
      sent: replyCount + reopenCount,
    };
    const firstChunks = reopened
      .map((reply) => reply.firstChunkMs)
      .filter(Number.isFinite)
      .sort((x, y) => x - y);

    // ---- 2. PostgreSQL writes per reply ---------------------------------------------------------
    const { rows: runs } = await sql.query<{ batches: number; status: string; ms: number }>(
      "select batches, status, extract(epoch from ended_at - started_at) * 1000 as ms from reply_runs where id = any($1::uuid[])",
      [runIds],
    );
    const batches = runs.reduce((sum, run) => sum + run.batches, 0);
    const streamingMs = runs.reduce((sum, run) => sum + Number(run.ms), 0);
    const writes = 2 * runs.length + batches;
    // The statistics collector hears of the app's writes when its connections go idle (within ~10 s).
    const expected = { insRuns: runs.length, insEvents: batches, updRuns: batches + runs.length };
    let delta = diff(await tableCounts(sql), before);
    for (const waitUntil = Date.now() + 15_000; Date.now() < waitUntil;) {
      if (
        delta.insRuns >= expected.insRuns &&
        delta.insEvents >= expected.insEvents &&
        delta.updRuns >= expected.updRuns
      )
        break;
      await sleep(500);
      delta = diff(await tableCounts(sql), before);
    }
    const statsMatch =
      delta.insRuns === expected.insRuns && delta.insEvents === expected.insEvents && delta.updRuns >= expected.updRuns;
    const renewals = statsMatch ? delta.updRuns - expected.updRuns : NaN;
    const figures: RunsFigures = {
      replies: replyCount,
      batchesMeasured: latencies.length,
      replayed,
      unnotified,
      followErrors,
      early404s,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      max: latencies.at(-1) ?? NaN,
      runs: runs.length,
      notCompleted: runs.filter((run) => run.status !== "completed").length,
      writesPerReply: (writes + (Number.isNaN(renewals) ? 0 : renewals)) / runs.length,
      batchesPerReply: batches / runs.length,
      streamingMsPerReply: streamingMs / runs.length,
      writesPer250: (writes + (Number.isNaN(renewals) ? 0 : renewals)) / (streamingMs / FLUSH_MS),
      batchesPer250: batches / (streamingMs / FLUSH_MS),
      renewals,
      stats: delta,
      statsMatch,
      reopens: reopened.length,
      lost,
      problems: reopened.flatMap((reply) => (reply.problem ? [reply.problem] : [])),
      reopenFirstChunkP50: percentile(firstChunks, 50),
      reopenFirstChunkP95: percentile(firstChunks, 95),
      quota,
      load: [loadAtStart, os.loadavg()[0]],
    };
    report(figures);
    passed = lost === 0 && quota.counted === quota.sent && followErrors === 0 && figures.notCompleted === 0;
    return passed;
  } finally {
    await listener.end().catch(() => undefined);
    await sql.end().catch(() => undefined);
    await app?.stop();
    await database.drop();
    if (passed) fs.rmSync(logFile, { force: true });
    else console.log(`The instances' log (warnings and errors): ${logFile}`);
  }
}

/**
 * With the instances polling, nothing NOTIFYs a batch: a trigger on the bench's
 * own database does, as the app would have, when the batch commits.
 */
async function notifyBatchesFromTrigger(sql: pg.Client) {
  await sql.query(`
    create function bench_batch_notice() returns trigger language plpgsql as $$
    begin
      perform pg_notify('${NOTICE_CHANNEL}', json_build_object('run', new.run_id, 'kind', 'events', 'seq', new.seq)::text);
      return new;
    end $$`);
  await sql.query(
    "create trigger bench_batch_notice after insert on reply_run_events for each row execute function bench_batch_notice()",
  );
}

interface TableCounts {
  insRuns: number;
  updRuns: number;
  insEvents: number;
  updEvents: number;
}

/** Rows inserted and updated so far in the runs' tables, per the statistics collector. */
async function tableCounts(sql: pg.Client): Promise<TableCounts> {
  const { rows } = await sql.query<{ relname: string; ins: string; upd: string }>(
    "select relname, n_tup_ins as ins, n_tup_upd as upd from pg_stat_user_tables where relname in ('reply_runs', 'reply_run_events')",
  );
  const of = (name: string) => rows.find((row) => row.relname === name) ?? { ins: "0", upd: "0" };
  return {
    insRuns: Number(of("reply_runs").ins),
    updRuns: Number(of("reply_runs").upd),
    insEvents: Number(of("reply_run_events").ins),
    updEvents: Number(of("reply_run_events").upd),
  };
}

function diff(after: TableCounts, before: TableCounts): TableCounts {
  return {
    insRuns: after.insRuns - before.insRuns,
    updRuns: after.updRuns - before.updRuns,
    insEvents: after.insEvents - before.insEvents,
    updEvents: after.updEvents - before.updEvents,
  };
}

interface RunsFigures {
  replies: number;
  batchesMeasured: number;
  replayed: number;
  unnotified: number;
  followErrors: number;
  early404s: string[];
  p50: number;
  p95: number;
  max: number;
  runs: number;
  notCompleted: number;
  writesPerReply: number;
  batchesPerReply: number;
  streamingMsPerReply: number;
  writesPer250: number;
  batchesPer250: number;
  renewals: number;
  stats: TableCounts;
  statsMatch: boolean;
  reopens: number;
  lost: number;
  problems: string[];
  reopenFirstChunkP50: number;
  reopenFirstChunkP95: number;
  quota: { counted: number; sent: number };
  /** The machine's 1-minute load average when the measuring began and ended. */
  load: [number, number];
}

function report(f: RunsFigures) {
  const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : "—");
  const renewals = Number.isNaN(f.renewals)
    ? "not verified (pg_stat_user_tables did not match)"
    : `${f.renewals} lease renewals (pg_stat_user_tables: ${f.stats.insRuns} + ${f.stats.insEvents} rows inserted, ${f.stats.updRuns} updated)`;
  const rows: Array<[string, string, string]> = [
    [
      `reattach latency on B, p50 / p95 / max (${f.batchesMeasured} live batches of ${f.replies} replies)`,
      `${ms(f.p50)} / ${ms(f.p95)} / ${ms(f.max)}`,
      `p95 ≤ 150 ms: ${f.p95 <= 150 ? "met" : "missed"}`,
    ],
    ["batches written before B attached (replayed, left out)", String(f.replayed), ""],
    [
      `PostgreSQL writes per reply (1 insert + ${f.batchesPerReply.toFixed(1)} batches + 1 end + renewals), ${f.runs} replies`,
      f.writesPerReply.toFixed(1),
      renewals,
    ],
    ["streaming per reply (reply_runs.started_at to ended_at)", `${(f.streamingMsPerReply / 1000).toFixed(2)} s`, ""],
    [
      "writes per 250 ms of streaming: all / batches only",
      `${f.writesPer250.toFixed(2)} / ${f.batchesPer250.toFixed(2)}`,
      `≤ 1: ${f.writesPer250 <= 1 ? "met" : `missed for all writes, ${f.batchesPer250 <= 1 ? "met" : "missed"} for batches`}`,
    ],
    [
      "tabs closed after 3 words, reopened on the other instance after 0–500 ms",
      `lost: ${f.lost} of ${f.reopens}`,
      `reopen to first chunk p50 ${ms(f.reopenFirstChunkP50)}, p95 ${ms(f.reopenFirstChunkP95)} (sessions known to both instances)`,
    ],
    [
      "quota (usage_daily.messages of both users)",
      `${f.quota.counted} counted for ${f.quota.sent} sent`,
      f.quota.counted === f.quota.sent ? "exact" : "WRONG",
    ],
  ];
  const notes = [
    f.followErrors ? `${f.followErrors} followed replies read incomplete or wrong on B.` : "",
    f.unnotified ? `${f.unnotified} batches had no notification at the bench's listener.` : "",
    ...f.early404s.map((line) => `GET /api/runs/<id> for a running reply answered 404 (retried every 20 ms), ${line}.`),
    f.notCompleted ? `${f.notCompleted} runs did not end completed.` : "",
    ...f.problems.map((problem) => `Lost: ${problem}.`),
  ].filter(Boolean);
  const text = [
    polled ? "## Replies that survive (runs), instances polling" : "## Replies that survive (runs)",
    "",
    `\`npm run bench -- --runs${polled ? " --poll" : ""}\`, ${new Date().toISOString().slice(0, 10)}, ${machineLine()}, load average ` +
      `${f.load[0].toFixed(1)} at the start and ${f.load[1].toFixed(1)} at the end. ` +
      "Two remix-serve instances, A and B, on a fresh database on the PostgreSQL server; the scripted model echoes " +
      `${words} words at one per ${wordMs} ms. Each part's user is checked once on each instance just before it (its session in their caches).`,
    ...(polled
      ? [
          "",
          "The instances are told `DATABASE_URL` is a transaction pooler and have no `DATABASE_DIRECT_URL` (ADR 097): nothing " +
            "LISTENs, B reads the rows of the runs it follows every 100 ms. The app then NOTIFYs no batch; a trigger the bench " +
            "adds to its database does, when each batch commits, which is when the app's own notice would have gone.",
        ]
      : []),
    "",
    `Reattach latency: ${f.replies} replies started on A one after another, each followed on B (\`GET /api/runs/<id>\`) as soon ` +
      "as A's first chunk names its run. The bench LISTENs on `nuvara_runs` and notes when each batch's notification arrives, " +
      "then matches B's chunks to batches by the batches' chunk counts (`reply_run_events`): a batch's latency is B's last " +
      "chunk of it minus its notification at the bench (a few ms below zero when B read the batch before the bench heard of " +
      "it). Batches notified before B's response headers came are replays and left out.",
    "",
    `Writes, over all ${f.runs} replies: the runs' statements — 1 insert, 1 per batch (events${polled ? " and lease" : ", lease and NOTIFY"} in one), 1 end ` +
      `${polled ? "" : "(the end's NOTIFY is one more statement, writing nothing) "}— and lease renewals, counted from \`pg_stat_user_tables\`; ` +
      "streaming time from `reply_runs.started_at` to `ended_at`. A batch is written 250 ms after the first chunk that waits, " +
      "the last at the end however soon after the one before: batches per 250 ms can pass 1 by that last one, and the " +
      "insert and the end add 2 writes to every reply whatever its length.",
    "",
    `Tabs closed: ${f.reopens} replies, ${parallel} at a time, started on A and B in turn, read for 3 words, the request aborted, ` +
      "reopened on the other instance after 0–500 ms and read to the end. Lost unless the text read equals the model's, " +
      "the `data-saved` chunk says completed and the conversation holds exactly the user's message and the completed reply, whole.",
    "",
    "| measure | figure | target / check |",
    "|---|---|---|",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
    ...(notes.length ? ["", ...notes] : []),
  ].join("\n");
  console.log(`\n${text}\n`);
  if (!process.argv.includes("--no-write")) {
    writeBenchmarks(polled ? "runs-poll" : "runs", text);
    console.log("Wrote docs/benchmarks.md");
  }
}
