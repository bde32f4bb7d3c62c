import { machineLine } from "./app-under-test";
import type { ExplainedStatement } from "./scale-explain";
import {
  CHATS_PER_OTHER_USER,
  LONG_CHAT_MESSAGES,
  MESSAGES_PER_CHAT,
  SEARCH_WORD,
  USAGE_DAYS,
  type RowCounts,
  type StageSize,
} from "./scale-seed";

/** The "Scale curves" part of docs/benchmarks.md, from `npm run bench -- --scale`'s figures (scripts/perf/scale.ts). */

/** A page's p95 at the largest stage may be at most this many times its p95 at the first. */
export const TARGET_RATIO = 2;

export interface PageFigures {
  page: string;
  p50: number;
  p95: number;
  concurrentP95: number;
  /** Answers other than 200, by status: "0" for none. */
  errors: string;
}

export interface StageFigures {
  size: StageSize;
  rows: RowCounts;
  seedMs: number;
  pages: PageFigures[];
}

interface ReportInput {
  /** PostgreSQL's version, as the server says it. */
  serverVersion: string;
  stages: StageFigures[];
  explained: ExplainedStatement[];
  loads: [number, number];
  requests: { warmUp: number; oneByOne: number; concurrent: number; connections: number };
}

const count = (value: number) => value.toLocaleString("en-US");
const ms = (value: number) => value.toFixed(1);

function methodLines({ serverVersion, stages, loads, requests }: ReportInput): string[] {
  return [
    `\`npm run bench -- --scale\` on ${new Date().toISOString().slice(0, 10)}, ${machineLine()}, load average ` +
      `${loads[0].toFixed(1)} at the start and ${loads[1].toFixed(1)} at the end. One remix-serve instance on a fresh ` +
      `database on the PostgreSQL server (${serverVersion}; dropped at the end), the Auth and Firestore emulators beside it.`,
    "",
    "The data is written with SQL (generate_series, ids that are md5s of what each row is: scripts/perf/scale-seed.ts) " +
      "in three cumulative stages. One real signed-in user (an Auth emulator account with a session cookie) holds " +
      `${stages.map((stage) => count(stage.size.heavyConversations)).join(", then ")} chats of ${MESSAGES_PER_CHAT} messages, ` +
      `one of them ${LONG_CHAT_MESSAGES} messages long; every other user holds ${CHATS_PER_OTHER_USER}, and the users, the admin ` +
      `inbox and ${USAGE_DAYS} days of usage rows per user grow in proportion. Messages are stored as the app stores them: ` +
      "a chain of user and assistant messages (each one's parent the one before, the last the branch shown), text parts, " +
      `the plain text in content, spread over the last 30 days. The word "${SEARCH_WORD}" is in one reply of one chat in a ` +
      "hundred and in one inbox item in a thousand. An admin account (role admin in the Firestore emulator) reads the admin pages.",
    "",
    "At each stage every page is first checked to show the seeded rows (its loader's JSON: the chats listed and found, " +
      `the ${LONG_CHAT_MESSAGES} messages with the last one shown, a full inbox page, 30 days and 10 top users, the CSV), ` +
      `then requested ${requests.warmUp} times to warm up, ${requests.oneByOne} times one after another (p50/p95: ` +
      `request to the end of the rendered page, ms) and ${requests.concurrent} times over ${requests.connections} ` +
      "connections (autocannon, p95). Compare figures within one run: the machine is shared.",
  ];
}

function stageRowsTable(stages: StageFigures[]): string[] {
  return [
    "| stage (heavy user's chats) | users | chats | messages | inbox items | usage rows | seeding |",
    "|---|---|---|---|---|---|---|",
    ...stages.map(
      ({ size, rows, seedMs }) =>
        `| ${count(size.heavyConversations)} | ${count(rows.users)} | ${count(rows.conversations)} | ${count(rows.messages)} | ` +
        `${count(rows.inbox)} | ${count(rows.usage)} | ${(seedMs / 1000).toFixed(0)} s |`,
    ),
  ];
}

function stageTable(stage: StageFigures, connections: number): string[] {
  return [
    `**${count(stage.size.heavyConversations)} chats** (${count(stage.rows.messages)} messages in all)`,
    "",
    `| page | p50 | p95 | p95 at ${connections} connections | errors |`,
    "|---|---|---|---|---|",
    ...stage.pages.map(
      (f) => `| ${f.page} | ${ms(f.p50)} | ${ms(f.p95)} | ${f.concurrentP95.toFixed(0)} | ${f.errors} |`,
    ),
  ];
}

interface Curve {
  page: string;
  p95s: number[];
  ratio: number;
  /** The same ratio of medians: less moved by a busy moment on a shared machine. */
  p50Ratio: number;
}

function curvesOf(stages: StageFigures[]): Curve[] {
  return stages[0].pages.map(({ page }) => {
    const figures = stages.map((stage) => stage.pages.find((f) => f.page === page)!);
    const p95s = figures.map((f) => f.p95);
    return { page, p95s, ratio: p95s.at(-1)! / p95s[0], p50Ratio: figures.at(-1)!.p50 / figures[0].p50 };
  });
}

function ratioTable(stages: StageFigures[], curves: Curve[]): string[] {
  const first = count(stages[0].size.heavyConversations);
  const last = count(stages.at(-1)!.size.heavyConversations);
  return [
    `| page | ${stages.map((stage) => `p95 @${count(stage.size.heavyConversations)}`).join(" | ")} | p95@${last} ÷ p95@${first} | target ≤ ${TARGET_RATIO}× | p50@${last} ÷ p50@${first} |`,
    `|---|${stages.map(() => "---|").join("")}---|---|---|`,
    ...curves.map(
      (curve) =>
        `| ${curve.page} | ${curve.p95s.map(ms).join(" | ")} | ${curve.ratio.toFixed(2)}× | ` +
        `${curve.ratio <= TARGET_RATIO ? "met" : "missed"} | ${curve.p50Ratio.toFixed(2)}× |`,
    ),
  ];
}

/** Rows a list returns without a LIMIT above which it is called unbounded. */
const UNBOUNDED_ROWS = 100;
/** Sequential scans of fewer rows (an empty table, a small one) are not worth a line. */
const NOTABLE_SCAN_ROWS = 1_000;

function explainLines(explained: ExplainedStatement[], largest: number): string[] {
  const scans = explained.flatMap((s) =>
    s.seqScans
      .filter((scan) => scan.rowsRead >= NOTABLE_SCAN_ROWS)
      .map((scan) => `${scan.relation} (${count(scan.rowsRead)} rows read) behind ${s.page}`),
  );
  const unbounded = explained.filter((s) => !s.limited && s.rows > UNBOUNDED_ROWS);
  const sortedWhole = explained.filter((s) => s.limited && s.rowsSorted >= NOTABLE_SCAN_ROWS);
  return [
    `EXPLAIN (ANALYZE, BUFFERS) at ${count(largest)} chats of each statement the pages' data functions send ` +
      "(recorded as the app sends them: scripts/perf/scale-explain.ts), the slowest page's first; /admin/usage.csv " +
      "sends /admin/usage's.",
    "",
    "| page | statement | execution ms | rows | LIMIT | rows sorted | sequential scans (rows read) | buffers hit / read |",
    "|---|---|---|---|---|---|---|---|",
    ...explained.map(
      (s) =>
        `| ${s.page} | \`${s.summary.replace(/\|/g, "\\|")}\` | ${ms(s.executionMs)} | ${count(s.rows)} | ${s.limited ? "yes" : "no"} | ${count(s.rowsSorted)} | ` +
        `${s.seqScans.map((scan) => `${scan.relation} (${count(scan.rowsRead)})`).join(", ") || "none"} | ${count(s.sharedHit)} / ${count(s.sharedRead)} |`,
    ),
    "",
    `Sequential scans of ${count(NOTABLE_SCAN_ROWS)} rows or more: ${scans.length > 0 ? scans.join("; ") : "none"}.`,
    "",
    `Lists sorted whole to give their first rows (${count(NOTABLE_SCAN_ROWS)} rows or more sorted under a LIMIT): ${
      sortedWhole.length > 0
        ? sortedWhole.map((s) => `${count(s.rowsSorted)} rows for ${count(s.rows)} behind ${s.page}`).join("; ")
        : "none"
    }.`,
    "",
    `Lists without a LIMIT returning over ${UNBOUNDED_ROWS} rows: ${
      unbounded.length > 0 ? unbounded.map((s) => `${count(s.rows)} rows behind ${s.page}`).join("; ") : "none"
    }.`,
  ];
}

/** The report, and whether every page met the target. */
export function scaleReport(input: ReportInput): { text: string; met: boolean } {
  const { stages, explained } = input;
  const curves = curvesOf(stages);
  const lines = [
    "## Scale curves",
    "",
    ...methodLines(input),
    "",
    ...stageRowsTable(stages),
    "",
    ...stages.flatMap((stage) => [...stageTable(stage, input.requests.connections), ""]),
    `How p95 grows from the first stage to the last (target ≤ ${TARGET_RATIO}×):`,
    "",
    ...ratioTable(stages, curves),
    "",
    ...explainLines(explained, stages.at(-1)!.size.heavyConversations),
    "",
  ];
  return { text: lines.join("\n"), met: curves.every((curve) => curve.ratio <= TARGET_RATIO) };
}
