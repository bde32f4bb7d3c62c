import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../support/app-process";
import { descendantPids, launchScript, type LaunchedScript } from "../support/start-process";

/**
 * `npm start` in local mode, as a supervisor sees it: when the server dies
 * under it (killed by a signal, e.g. the OOM killer), the script exits with a
 * failure code, so the supervisor restarts it instead of taking it for a
 * clean stop.
 */
let started: LaunchedScript;

beforeAll(async () => {
  await buildApp();
  started = await launchScript("scripts/start.ts", { args: ["--fresh"] });
}, 300_000);

afterAll(() => started?.stop());

describe("npm start", () => {
  it("prints the demo accounts and serves the app", async () => {
    expect(started.output()).toContain("admin@example.com");
    expect((await fetch(`${started.origin}/login`)).status).toBe(200);
  });

  it("exits non-zero (128 + the signal) when its server is killed", async () => {
    const [server] = descendantPids(started.child.pid!, "@remix-run/serve");
    expect(server, "the remix-serve process under npm start").toBeDefined();
    process.kill(server, "SIGKILL");
    expect(await started.exited).toEqual({ code: 137, signal: null });
  }, 60_000);
});
