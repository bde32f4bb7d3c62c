import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig } from "../app/config.server";
import { buildIfStale, SERVER_BUILD } from "./build-if-stale";
import { listenPlan, localUrl } from "./listen-host";
import { DEMO_ACCOUNTS } from "./local/seed";
import { resetDataDir, startLocalStack } from "./local/stack";

/**
 * `npm start`. With a real Firebase project configured it is remix-serve
 * alone. Otherwise (local mode) it first starts the Auth emulator, a
 * Firestore emulator and embedded PostgreSQL on this machine, seeds the demo
 * accounts, and prints them. Ctrl-C stops everything it started.
 *
 *   npm start                 local mode, data kept in .local/
 *   npm start -- --fresh      local mode, starting from empty data
 *
 * Local mode listens on 127.0.0.1 only unless HOST is set (it accepts
 * unsigned emulator tokens: scripts/listen-host.ts).
 */
if (fs.existsSync(".env")) process.loadEnvFile(".env");

const fresh = process.argv.includes("--fresh") || process.env.FRESH === "1";
const port = process.env.PORT ?? "3000";

let config;
try {
  config = parseConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

buildIfStale();

const listen = listenPlan(config.mode, { HOST: process.env.HOST }, port);

const serveArgs = [path.resolve("node_modules/@remix-run/serve/dist/cli.js"), SERVER_BUILD];

/**
 * The server's own exit code; a server killed by a signal (the OOM killer's
 * SIGKILL, say) exits as a shell reports it, 128 + the signal's number, so a
 * supervisor sees a failure and restarts it.
 */
function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0);
}

function serve(env: NodeJS.ProcessEnv) {
  return spawn(process.execPath, serveArgs, {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...env, NODE_ENV: "production", PORT: port, ...(listen.host ? { HOST: listen.host } : {}) },
  });
}

if (config.mode === "real") {
  for (const line of listen.notice) console.log(line);
  const child = serve(process.env);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(exitCodeOf(code, signal)));
} else {
  const dataDir = path.resolve(process.env.LOCAL_DATA_DIR ?? `.local/${config.projectId}-${port}`);
  if (fresh) resetDataDir(dataDir);
  console.log(`Local mode: starting the Firebase emulators and embedded PostgreSQL (data in ${path.relative(".", dataDir)})…`);
  const stack = await startLocalStack({
    projectId: config.projectId,
    authHost: config.authEmulatorHost!,
    firestoreHost: config.firestoreEmulatorHost!,
    databaseUrl: config.databaseUrl,
    dataDir,
    workDir: path.join(dataDir, "run"),
  });
  await stack.admin.close();

  const child = serve({ ...process.env, ...stack.env });
  let stopping = false;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  async function shutdown(code: number) {
    if (stopping) return;
    stopping = true;
    // The app first, so it does not see its backends go away under it.
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await stack.stop();
    process.exit(code);
  }
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  child.on("exit", (code, signal) => void shutdown(exitCodeOf(code, signal)));

  const url = localUrl(listen.host, port);
  console.log(
    [
      "",
      `Nuvara² is starting on ${url} (local mode, project ${config.projectId})`,
      `  Auth emulator      ${stack.env.FIREBASE_AUTH_EMULATOR_HOST}  (verification and reset links appear in ${path.relative(".", stack.authLogPath)})`,
      `  Firestore emulator ${stack.env.FIRESTORE_EMULATOR_HOST}`,
      `  PostgreSQL         ${config.databaseUrl ? "DATABASE_URL" : "embedded PGlite"}`,
      "",
      ...listen.notice,
      "",
      "Demo accounts:",
      ...DEMO_ACCOUNTS.map((a) => `  ${a.role === "admin" ? "admin" : "user "}  ${a.email}  password: ${a.password}`),
      "",
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
}
