import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchScript, type LaunchedScript } from "../support/start-process";

/**
 * `npm run dev` as a developer uses it: it brings the local stack up once,
 * serves a development build, and after a source file is saved it rebuilds
 * and the page open in the browser reloads itself with the change. It runs in
 * a copy of the repository (sharing node_modules), so editing a file there
 * never touches the sources other tests build from.
 */
const LEAD = "Your own AI assistant: ask questions";
const CHANGED = "Edited in the dev loop";

let copy: string;
let dev: LaunchedScript;
let browser: Browser;

function copyRepository(): string {
  const target = fs.mkdtempSync(path.join(os.tmpdir(), "nuvara-dev-loop-"));
  for (const entry of [
    "app",
    "public",
    "scripts",
    "server.ts",
    "remix.config.js",
    "remix.env.d.ts",
    "tsconfig.json",
    "package.json",
  ]) {
    fs.cpSync(path.resolve(entry), path.join(target, entry), {
      recursive: true,
      filter: (source) => !source.includes(`${path.sep}build`),
    });
  }
  fs.symlinkSync(path.resolve("node_modules"), path.join(target, "node_modules"), "dir");
  return target;
}

beforeAll(async () => {
  copy = copyRepository();
  dev = await launchScript("scripts/dev.ts", { cwd: copy });
  browser = await chromium.launch({
    executablePath: fs.existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined,
    args: ["--no-sandbox", "--disable-gpu"],
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

describe("npm run dev", () => {
  it("serves a development build of the app on the local stack, with the demo accounts", async () => {
    expect(dev.output()).toContain("admin@example.com");
    expect(dev.output()).toContain("development mode");
    const home = await (await fetch(dev.origin)).text();
    expect(home).toContain(LEAD);
    expect(home).toContain("remixLiveReloadConnect");
  });

  it("rebuilds on save and the open page reloads with the change", async () => {
    const page = await browser.newPage();
    await page.goto(dev.origin);
    await expect.poll(() => page.getByText(LEAD).count()).toBe(1);
    // The page is connected to the reload channel before the file changes.
    await page.waitForFunction(() =>
      performance.getEntriesByType("resource").some((entry) => entry.name.includes("/build/")),
    );

    const index = path.join(copy, "app/routes/_index.tsx");
    fs.writeFileSync(index, fs.readFileSync(index, "utf8").replace(LEAD, CHANGED));

    // No navigation of ours: the page reloads (or updates) itself once the new build is served.
    await expect
      .poll(() => page.getByText(CHANGED).count(), {
        timeout: 180_000,
        interval: 500,
        message: dev.output().slice(-3000),
      })
      .toBe(1);
    expect(await (await fetch(dev.origin)).text()).toContain(CHANGED);
  }, 240_000);
});
