import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * A `.only` left in a test file must fail `npm test`, not quietly skip every
 * other test. Each runner is started on a scratch file that holds one focused
 * test, with the project's own configuration (only its test files and set-up
 * swapped for the scratch ones): it must refuse to run.
 */
// Inside the repository (git-ignored), so the scratch files resolve its packages and are ES modules like its own.
fs.mkdirSync(path.resolve(".cache"), { recursive: true });
const scratch = fs.mkdtempSync(path.resolve(".cache/gate-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const node = process.execPath;
const bin = (pkg: string, file: string) => path.resolve("node_modules", pkg, file);

function runIn(args: string[]) {
  return spawnSync(node, args, {
    cwd: path.resolve("."),
    encoding: "utf8",
    env: { ...process.env, CI: "", FORCE_COLOR: "0" },
    timeout: 120_000,
  });
}

describe("a focused test fails the run", () => {
  it("in vitest", () => {
    const testFile = path.join(scratch, "focused.test.ts");
    fs.writeFileSync(
      testFile,
      `import { it } from "vitest";\nit.only("focused", () => {});\nit("skipped", () => {});\n`,
    );
    const config = path.join(scratch, "vitest.gate.config.ts");
    fs.writeFileSync(
      config,
      `import project from ${JSON.stringify(path.resolve("vitest.config.ts"))};
export default { ...project, test: { ...project.test, include: [${JSON.stringify(testFile)}], globalSetup: [] } };\n`,
    );
    const result = runIn([bin("vitest", "vitest.mjs"), "run", "--config", config]);
    expect(result.status, result.stdout + result.stderr).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/Unexpected \.only modifier/);
  });

  it("in Playwright", () => {
    const testDir = path.join(scratch, "e2e");
    fs.mkdirSync(testDir, { recursive: true });
    fs.writeFileSync(
      path.join(testDir, "focused.spec.ts"),
      `import { test } from "@playwright/test";\ntest.only("focused", () => {});\ntest("skipped", () => {});\n`,
    );
    const config = path.join(scratch, "playwright.gate.config.ts");
    fs.writeFileSync(
      config,
      `import project from ${JSON.stringify(path.resolve("playwright.config.ts"))};
export default { ...project, testDir: ${JSON.stringify(testDir)}, globalSetup: undefined, webServer: undefined };\n`,
    );
    const result = runIn([bin("@playwright/test", "cli.js"), "test", "--config", config, "--list"]);
    expect(result.status, result.stdout + result.stderr).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/focused with '.only' is not allowed/);
  });
});
