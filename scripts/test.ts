import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * `npm test`: every check and test — typecheck, lint, vitest (unit and
 * integration on the emulators), the build, and Playwright in Chromium —
 * each run even when an earlier one fails, then one closing line that counts
 * them: "N passed, N failed".
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

function run(title: string, args: string[], env: Record<string, string> = {}) {
  console.log(`\n▶ ${title}`);
  const stepStarted = Date.now();
  const result = spawnSync(process.execPath, args, { stdio: "inherit", env: { ...process.env, ...env } });
  console.log(`◀ ${title}: ${result.status === 0 ? "ok" : "failed"} in ${seconds(stepStarted)}`);
  return result.status === 0;
}

function check(title: string, args: string[]) {
  if (run(title, args)) passed++;
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

check("typecheck", [bin("typescript", "bin/tsc"), "-p", "."]);
check("lint", [bin("eslint", "bin/eslint.js"), "."]);

const vitestReport = path.join(REPORTS, "vitest.json");
const vitestOk = run("vitest (unit and integration)", [
  bin("vitest", "vitest.mjs"),
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${vitestReport}`,
]);
const vitest = readJson<{
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}>(vitestReport);
if (vitest) {
  passed += vitest.numPassedTests;
  failed += vitest.numFailedTests;
  skipped += vitest.numPendingTests + vitest.numTodoTests;
  if (!vitestOk && vitest.numFailedTests === 0) failed++; // a failure outside any test
} else failed++; // no report: the run did not finish

const built = run("build", [bin("@remix-run/dev", "dist/cli.js"), "build"], { NODE_ENV: "production" });
if (built) passed++;
else failed++;

const playwrightReport = path.join(REPORTS, "playwright.json");
const playwrightOk = built
  ? run("Playwright (Chromium, local mode)", [bin("@playwright/test", "cli.js"), "test"], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
    })
  : false;
const playwright = readJson<{ stats: { expected: number; unexpected: number; flaky: number; skipped: number } }>(
  playwrightReport,
);
if (playwright) {
  passed += playwright.stats.expected;
  failed += playwright.stats.unexpected + playwright.stats.flaky;
  skipped += playwright.stats.skipped;
  if (!playwrightOk && playwright.stats.unexpected === 0) failed++;
} else failed++;

console.log(`\nnpm test took ${seconds(startedAt)}`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed === 0 ? 0 : 1);
