import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { buildIfStale, SERVER_BUILD } from "../../scripts/build-if-stale";
import { freePort } from "../../scripts/local/ports";

/**
 * The built app served by remix-serve in a child process, as `npm start`
 * runs it (scripts/start.ts), against the backends of the current
 * environment: for tests that kill and restart the server.
 */
export interface AppProcess {
  origin: string;
  /** The server's process id (its memory is in /proc/<pid>/status). */
  pid: number;
  /** Sends a signal; resolves when the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Everything it wrote to stdout so far (remix-serve's access log), when started with `stdout: true`. */
  stdout(): string;
}

const BUILD_LOCK = path.resolve(".cache/build.lock");

/**
 * Builds the app when stale. Test files run in parallel workers and several
 * need the build: one builds at a time (a directory as the lock, since
 * creating one is atomic), the others then find it fresh.
 */
export async function buildApp() {
  fs.mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(BUILD_LOCK);
      break;
    } catch {
      // A lock left by a killed run is older than any build takes.
      const age = Date.now() - (fs.statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) fs.rmSync(BUILD_LOCK, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    buildIfStale(() => undefined);
  } finally {
    fs.rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

export async function startApp({
  port,
  env = {},
  stdout: keepStdout = false,
}: { port?: number; env?: Record<string, string>; stdout?: boolean } = {}): Promise<AppProcess> {
  const appPort = port ?? (await freePort());
  const child: ChildProcess = spawn(
    process.execPath,
    [path.resolve("node_modules/@remix-run/serve/dist/cli.js"), SERVER_BUILD],
    {
      stdio: ["ignore", keepStdout ? "pipe" : "ignore", "pipe"],
      env: { ...process.env, ...env, NODE_ENV: "production", PORT: String(appPort) },
    },
  );
  let stderr = "";
  let stdout = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const origin = `http://127.0.0.1:${appPort}`;

  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the app exited at start: ${stderr}`);
    const healthy = await fetch(`${origin}/healthz`)
      .then((response) => response.ok)
      .catch(() => false);
    if (healthy) break;
    if (Date.now() - started > 30_000) {
      child.kill("SIGKILL");
      throw new Error(`the app did not become healthy: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    origin,
    pid: child.pid!,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
    stderr: () => stderr,
    stdout: () => stdout,
  };
}
