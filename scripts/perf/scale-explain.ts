import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Db } from "~/db/client.server";
import * as schema from "~/db/schema";

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the very statements a page's data functions
 * send (app/data/*.server.ts), for `npm run bench -- --scale`: the functions
 * run once against a database handle that records each statement and its
 * parameters, then each statement is explained as it was sent. Nothing is
 * written out by hand, so the plans cannot drift from the code.
 */

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Actual Total Time": number;
  "Rows Removed by Filter"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

export interface SeqScan {
  relation: string;
  /** Rows the scan read: kept and removed by its filter, over all its loops. */
  rowsRead: number;
}

export interface ExplainedStatement {
  page: string;
  /** The statement without its columns, shortened. */
  summary: string;
  executionMs: number;
  /** Rows the statement returns. */
  rows: number;
  /** Whether its top node is a LIMIT (a bounded list). */
  limited: boolean;
  seqScans: SeqScan[];
  /** Rows into the sort that orders the output (a list sorted whole to give its first rows, under a LIMIT). */
  rowsSorted: number;
  /** 8 kB pages read from the cache and from disk. */
  sharedHit: number;
  sharedRead: number;
  /** The plan as an indented tree, for the console. */
  tree: string;
}

interface Recorded {
  sql: string;
  params: unknown[];
}

/** Runs `calls` with a handle that records every statement, and returns them in order. */
async function recordStatements(pool: pg.Pool, calls: (db: Db) => Promise<unknown>): Promise<Recorded[]> {
  const recorded: Recorded[] = [];
  const db = drizzle(pool, {
    schema,
    logger: { logQuery: (sql, params) => recorded.push({ sql, params }) },
  }) as Db;
  await calls(db);
  return recorded;
}

/** Explains every statement the calls of each page send. */
export async function explainPages(
  databaseUrl: string,
  pages: Array<{ page: string; calls: (db: Db) => Promise<unknown> }>,
): Promise<ExplainedStatement[]> {
  // One connection: statements a function sends at once run one after another here, as they would be recorded.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const explained: ExplainedStatement[] = [];
    for (const { page, calls } of pages) {
      for (const statement of await recordStatements(pool, calls)) {
        explained.push(await explainStatement(pool, page, statement));
      }
    }
    return explained;
  } finally {
    await pool.end();
  }
}

async function explainStatement(pool: pg.Pool, page: string, statement: Recorded): Promise<ExplainedStatement> {
  const { rows } = await pool.query<{ "QUERY PLAN": Array<{ Plan: PlanNode; "Execution Time": number }> }>(
    `explain (analyze, buffers, format json) ${statement.sql}`,
    statement.params,
  );
  const [{ Plan: plan, "Execution Time": executionMs }] = rows[0]["QUERY PLAN"];
  return {
    page,
    summary: summarise(statement.sql),
    executionMs,
    rows: plan["Actual Rows"],
    limited: plan["Node Type"] === "Limit",
    seqScans: nodesOf(plan)
      .filter((node) => node["Node Type"].endsWith("Seq Scan") && node["Relation Name"])
      .map((node) => ({
        relation: node["Relation Name"]!,
        rowsRead: rowsOut(node) + (node["Rows Removed by Filter"] ?? 0) * node["Actual Loops"],
      })),
    rowsSorted: rowsIntoOutputSort(plan),
    sharedHit: plan["Shared Hit Blocks"] ?? 0,
    sharedRead: plan["Shared Read Blocks"] ?? 0,
    tree: planTree(plan),
  };
}

/** The statement without its list of columns, whitespace folded, cut at 160 characters. */
function summarise(sql: string): string {
  const folded = sql
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^select .*? from /i, "select … from ");
  return folded.length > 160 ? `${folded.slice(0, 159)}…` : folded;
}

/** Rows a node gave over all its loops (Actual Rows is per loop). */
const rowsOut = (node: PlanNode) => node["Actual Rows"] * node["Actual Loops"];

/** Nodes that pass the output's order through from the node below them. */
const PASSING_ORDER = new Set(["Limit", "Gather Merge", "Gather", "Result"]);

/** The rows the sort that orders the statement's output was given; 0 when none sorts it (an index gives the order). */
function rowsIntoOutputSort(node: PlanNode): number {
  if (node["Node Type"].endsWith("Sort")) return (node.Plans ?? []).reduce((rows, child) => rows + rowsOut(child), 0);
  if (!PASSING_ORDER.has(node["Node Type"]) || !node.Plans) return 0;
  return rowsIntoOutputSort(node.Plans[0]);
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** One line per node: what it does, on what, the rows it gave (× loops), the rows its filter dropped, its time. */
function planTree(node: PlanNode, depth = 0): string {
  const on = node["Relation Name"] ? ` on ${node["Relation Name"]}` : "";
  const using = node["Index Name"] ? ` using ${node["Index Name"]}` : "";
  const removed = node["Rows Removed by Filter"] ? `, ${node["Rows Removed by Filter"]} removed by filter` : "";
  const line =
    `${"  ".repeat(depth)}${node["Node Type"]}${on}${using}: ${node["Actual Rows"]} rows × ${node["Actual Loops"]}` +
    `${removed}, ${node["Actual Total Time"].toFixed(1)} ms`;
  return [line, ...(node.Plans ?? []).map((child) => planTree(child, depth + 1))].join("\n");
}
