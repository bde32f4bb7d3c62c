/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
 * against the app's MCP client: every client scenario the installed suite
 * lists, one at a time, each through scripts/mcp-conformance-client.ts.
 * Prints a pass/fail table; with --write, puts it in docs/benchmarks.md
 * ("MCP client conformance"). The OAuth scenarios (auth/…) run the app's
 * OAuth provider (docs/decisions/092); the few the client does not do are
 * listed as not supported, with the reason (UNSUPPORTED).
 *
 *   npx tsx scripts/mcp-conformance.ts [--write] [--scenario <name>]
 *
 * tests/integration/mcp-conformance.test.ts runs the same scenarios and fails
 * on any that does not pass.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const SUITE = path.resolve("node_modules/@modelcontextprotocol/conformance");
const SUITE_CLI = path.join(SUITE, "dist/index.js");
const CLIENT_COMMAND = `${process.execPath} --import tsx scripts/mcp-conformance-client.ts`;
const BENCHMARKS = "docs/benchmarks.md";
const START = "<!-- mcp-conformance:start -->";
const END = "<!-- mcp-conformance:end -->";

export interface ScenarioResult {
  scenario: string;
  status: "passed" | "failed" | "not supported";
  passed: number;
  failed: number;
  warnings: number;
  /** The failed checks' ids, or why the scenario did not run. */
  notes: string[];
}

export function suiteVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(SUITE, "package.json"), "utf8")) as { version: string }).version;
}

function run(args: string[], timeoutMs: number): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SUITE_CLI, ...args],
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** The client scenarios the installed suite offers, in its order. */
export async function clientScenarios(): Promise<string[]> {
  const { output } = await run(["list"], 60_000);
  const section = output.split(/Client scenarios[^\n]*\n/)[1] ?? "";
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
}

export function isAuthScenario(scenario: string): boolean {
  return scenario.startsWith("auth/");
}

/** Scenarios this client does not do, and why. */
export const UNSUPPORTED: ReadonlyMap<string, string> = new Map([
  [
    "auth/cross-app-access-complete-flow",
    "enterprise-managed authorization (SEP-990: an identity provider's ID token exchanged for an ID-JAG, then a JWT bearer grant): the app signs each user in per server and holds no identity provider's token to exchange",
  ],
]);

interface Check {
  id: string;
  status: string;
}

function readChecks(outputDir: string): Check[] {
  const found: Check[] = [];
  for (const entry of fs.existsSync(outputDir) ? fs.readdirSync(outputDir, { recursive: true }) : []) {
    const file = path.join(outputDir, String(entry));
    if (path.basename(file) === "checks.json") found.push(...(JSON.parse(fs.readFileSync(file, "utf8")) as Check[]));
  }
  return found;
}

export async function runScenario(scenario: string, timeoutMs = 90_000): Promise<ScenarioResult> {
  const unsupported = UNSUPPORTED.get(scenario);
  if (unsupported) {
    return { scenario, status: "not supported", passed: 0, failed: 0, warnings: 0, notes: [unsupported] };
  }
  const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-conformance-"));
  try {
    const { code, output } = await run(
      ["client", "--command", CLIENT_COMMAND, "--scenario", scenario, "-o", outputDir],
      timeoutMs,
    );
    const checks = readChecks(outputDir);
    const failedChecks = checks.filter((check) => check.status === "FAILURE").map((check) => check.id);
    const passed = checks.filter((check) => check.status === "SUCCESS").length;
    const warnings = checks.filter((check) => check.status === "WARNING").length;
    const ok = code === 0 && failedChecks.length === 0 && passed > 0;
    return {
      scenario,
      status: ok ? "passed" : "failed",
      passed,
      failed: failedChecks.length,
      warnings,
      notes: ok ? [] : failedChecks.length > 0 ? failedChecks : [output.trim().split("\n").slice(-5).join(" ")],
    };
  } finally {
    fs.rmSync(outputDir, { recursive: true, force: true });
  }
}

export function resultsTable(results: readonly ScenarioResult[]): string {
  const rows = results.map((result) =>
    result.status === "not supported"
      ? `| ${result.scenario} | not supported | | | ${result.notes.join(", ")} |`
      : `| ${result.scenario} | ${result.status} | ${result.passed} | ${result.failed} | ${result.notes.join(", ")} |`,
  );
  return ["| scenario | result | checks passed | checks failed | notes |", "|---|---|---|---|---|", ...rows].join("\n");
}

function writeBenchmarks(results: readonly ScenarioResult[]) {
  const ran = results.filter((result) => result.status !== "not supported");
  const section = [
    START,
    "## MCP client conformance",
    "",
    `\`npx tsx scripts/mcp-conformance.ts --write\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ` +
      `the official suite @modelcontextprotocol/conformance ${suiteVersion()}: every client scenario it lists, each ` +
      "against the suite's own scenario server, through `scripts/mcp-conformance-client.ts` (the app's `connectMcp`, ADR 089). " +
      `${ran.filter((result) => result.status === "passed").length} of ${ran.length} scenarios run pass; ` +
      "the OAuth scenarios (auth/…) run the app's OAuth provider (ADR 092) headless, the suite's authorization server " +
      "approving at once; a scenario marked not supported is not run, for the reason given. " +
      "`tests/integration/mcp-conformance.test.ts` runs the same scenarios in `npm test`.",
    "",
    resultsTable(results),
    END,
  ].join("\n");
  const current = fs.readFileSync(BENCHMARKS, "utf8");
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + END.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(BENCHMARKS, next);
}

async function main() {
  const args = process.argv.slice(2);
  const only = args.includes("--scenario") ? args[args.indexOf("--scenario") + 1] : undefined;
  const scenarios = only ? [only] : await clientScenarios();
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    const result = await runScenario(scenario);
    console.error(`${scenario}: ${result.status}`);
    results.push(result);
  }
  console.log(`\n@modelcontextprotocol/conformance ${suiteVersion()}\n\n${resultsTable(results)}`);
  if (args.includes("--write")) {
    writeBenchmarks(results);
    console.log(`\nWrote ${BENCHMARKS}`);
  }
  process.exitCode = results.some((result) => result.status === "failed") ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  void main();
}
