import http from "node:http";
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import type { TestProject } from "vitest/node";
import { freePort } from "../../scripts/local/ports";
import { startLocalStack } from "../../scripts/local/stack";
import { startFaultProxy, type FaultMode, type FaultProxy } from "./fault-proxy";

/**
 * Starts the real backends once for vitest: the Auth emulator, the Firestore
 * emulator and PGlite (in memory), each behind a fault proxy that tests can
 * stop or stall through a small control endpoint (tests/support/faults.ts).
 */
export default async function setup(_project: TestProject) {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "nuvara-vitest-"));
  const stack = await startLocalStack({
    projectId: "demo-nuvara-test",
    authHost: `127.0.0.1:${await freePort()}`,
    firestoreHost: `127.0.0.1:${await freePort()}`,
    workDir,
  });
  await stack.admin.close();

  const proxies: Record<string, FaultProxy> = {
    identity: await startFaultProxy(stack.env.FIREBASE_AUTH_EMULATOR_HOST),
    firestore: await startFaultProxy(stack.env.FIRESTORE_EMULATOR_HOST),
    postgres: await startFaultProxy(new URL(stack.env.DATABASE_URL).host),
  };

  const control = http.createServer((req, res) => {
    const latency = /^\/(identity|firestore|postgres)\/latency\/(\d+)$/.exec(req.url ?? "");
    if (req.method === "POST" && latency) {
      proxies[latency[1]].latencyMs = Number(latency[2]);
      res.writeHead(204).end();
      return;
    }
    const match = /^\/(identity|firestore|postgres)\/(pass|refuse|stall|error)$/.exec(req.url ?? "");
    if (req.method !== "POST" || !match) {
      res.writeHead(404).end();
      return;
    }
    proxies[match[1]].setMode(match[2] as FaultMode);
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  const controlPort = (control.address() as { port: number }).port;

  const proxiedDb = new URL(stack.env.DATABASE_URL);
  proxiedDb.host = proxies.postgres.hostPort;

  Object.assign(process.env, {
    FIREBASE_PROJECT_ID: stack.env.FIREBASE_PROJECT_ID,
    FIREBASE_AUTH_EMULATOR_HOST: proxies.identity.hostPort,
    FIRESTORE_EMULATOR_HOST: proxies.firestore.hostPort,
    DATABASE_URL: proxiedDb.toString(),
    DATABASE_POOL_SIZE: stack.env.DATABASE_POOL_SIZE ?? "10",
    // Direct addresses, for test helpers that must work while a proxy is faulted.
    TEST_AUTH_EMULATOR_DIRECT: stack.env.FIREBASE_AUTH_EMULATOR_HOST,
    TEST_FIRESTORE_DIRECT: stack.env.FIRESTORE_EMULATOR_HOST,
    TEST_PGLITE_URL: stack.env.DATABASE_URL,
    FAULT_CONTROL_URL: `http://127.0.0.1:${controlPort}`,
    BACKEND_TIMEOUT_MS: "1000",
    AUTH_CACHE_TTL_SECONDS: "0",
    // No line per request in test output; faults still show (tests that check lines capture them: tests/support/log-capture.ts).
    LOG_LEVEL: "warn",
  });

  return async () => {
    control.close();
    for (const proxy of Object.values(proxies)) await proxy.close();
    await stack.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  };
}
