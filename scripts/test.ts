import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";

/**
 * `npm test`: every check and test — typecheck, lint, formatting, the build,
 * vitest (unit and integration on the emulators) and Playwright in Chromium —
 * each run even when another fails, then one closing line that counts them:
 * "N passed, N failed". Two steps run at a time, one per core.
 *
 * The gate fails closed: a runner that ends without its report, or that
 * fails outside any test, counts as a failure; a `.only` fails both runners
 * (vitest.config.ts `allowOnly: false`, playwright.config.ts `forbidOnly`).
 */
const REPORTS = path.resolve(".cache/test");
fs.rmSync(REPORTS, { recursive: true, force: true });
fs.mkdirSync(REPORTS, { recursive: true });

const bin = (pkg: string, file: string) => path.resolve("node_modules", pkg, file);
let passed = 0;
let failed = 0;
let skipped = 0;

const startedAt = Date.now();
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

/**
 * Runs one step as a child process. Two steps run side by side (the machine
 * has two cores), so each line a step prints is prefixed with its name.
 */
function run(title: string, args: string[], env: Record<string, string> = {}): Promise<boolean> {
  console.log(`▶ ${title}`);
  const stepStarted = Date.now();
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on("line", (line) => console.log(`[${title}] ${line}`));
  }
  return new Promise((resolve) => {
    child.on("close", (code) => {
      console.log(`◀ ${title}: ${code === 0 ? "ok" : "failed"} in ${seconds(stepStarted)}`);
      resolve(code === 0);
    });
  });
}

async function check(title: string, args: string[]) {
  if (await run(title, args)) passed++;
  else {
    failed++;
    console.log(`✗ ${title} failed`);
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

async function staticChecks() {
  await check("typecheck", [bin("typescript", "bin/tsc"), "-p", "."]);
  await check("lint", [bin("eslint", "bin/eslint.js"), "."]);
  await check("format", [bin("prettier", "bin/prettier.cjs"), "--check", "."]);
}

async function build() {
  const built = await run("build", [bin("@remix-run/dev", "dist/cli.js"), "build"], { NODE_ENV: "production" });
  if (built) passed++;
  else failed++;
  return built;
}

/** Unit and integration tests; their files run one at a time (vitest.config.ts). */
async function vitestRun() {
  const report = path.join(REPORTS, "vitest.json");
  const ok = await run("vitest", [
    bin("vitest", "vitest.mjs"),
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
  ]);
  const vitest = readJson<{
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
  }>(report);
  if (vitest) {
    passed += vitest.numPassedTests;
    failed += vitest.numFailedTests;
    skipped += vitest.numPendingTests + vitest.numTodoTests;
    if (!ok && vitest.numFailedTests === 0) failed++; // a failure outside any test
  } else failed++; // no report: the run did not finish
}

/** Browser tests in Chromium against the built app in local mode. */
async function playwrightRun(built: boolean) {
  const report = path.join(REPORTS, "playwright.json");
  const ok = built
    ? await run("playwright", [bin("@playwright/test", "cli.js"), "test"], { PLAYWRIGHT_JSON_OUTPUT_NAME: report })
    : false;
  const playwright = readJson<{ stats: { expected: number; unexpected: number; flaky: number; skipped: number } }>(
    report,
  );
  if (playwright) {
    passed += playwright.stats.expected;
    failed += playwright.stats.unexpected + playwright.stats.flaky;
    skipped += playwright.stats.skipped;
    if (!ok && playwright.stats.unexpected === 0) failed++;
  } else failed++;
}

// The static checks beside the build; then the two test runners side by side, on the same build
// (each starts its own emulators, databases and app servers on free ports).
const [, built] = await Promise.all([staticChecks(), build()]);
await Promise.all([vitestRun(), playwrightRun(built)]);

console.log(`\nnpm test took ${seconds(startedAt)}`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed === 0 ? 0 : 1);
