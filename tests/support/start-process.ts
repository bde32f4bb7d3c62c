import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { freePort, waitFor } from "../../scripts/local/ports";

/**
 * One of the project's own launch scripts (`npm start`'s scripts/start.ts,
 * `npm run dev`'s scripts/dev.ts) as a user runs it, in local mode on free
 * ports and a scratch data folder, with the test environment's own backends
 * taken out of its variables.
 */
export interface LaunchedScript {
  origin: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (or the signal) once it has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

const INHERITED_BACKENDS = [
  "NODE_ENV",
  "DATABASE_URL",
  "FIREBASE_AUTH_EMULATOR_HOST",
  "FIRESTORE_EMULATOR_HOST",
  "FIREBASE_PROJECT_ID",
  "LLM_BASE_URL",
];

const TSX_LOADER = pathToFileURL(path.resolve("node_modules/tsx/dist/loader.mjs")).href;

export async function launchScript(
  script: string,
  {
    args = [],
    env: extraEnv = {},
    cwd = path.resolve("."),
    healthTimeoutMs = 240_000,
  }: { args?: string[]; env?: Record<string, string>; cwd?: string; healthTimeoutMs?: number } = {},
): Promise<LaunchedScript> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "nuvara-launch-"));
  const baseEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !INHERITED_BACKENDS.includes(name)),
  );
  const env: Record<string, string | undefined> = {
    ...baseEnv,
    PORT: String(port),
    FIREBASE_PROJECT_ID: "demo-nuvara-launch",
    FIREBASE_AUTH_EMULATOR_HOST: `127.0.0.1:${await freePort()}`,
    FIRESTORE_EMULATOR_HOST: `127.0.0.1:${await freePort()}`,
    LOCAL_DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  // The script runs in this node process itself (tsx as a loader), not under the tsx command: that
  // command relays Ctrl-C to its child and kills it outright if it has not answered within 30 ms,
  // which on a loaded machine left the script's app and emulators running after the test.
  const child = spawn(process.execPath, ["--import", TSX_LOADER, script, ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: env as NodeJS.ProcessEnv, // Remix's types make NODE_ENV required; the script sets its own
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const origin = `http://127.0.0.1:${port}`;
  const launched: LaunchedScript = {
    origin,
    child,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(
      `${script} (output so far: ${output.slice(-2000)})`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${script} exited at start: ${output}`);
        return (await fetch(`${origin}/healthz`)).ok;
      },
      healthTimeoutMs,
    );
  } catch (error) {
    await launched.stop();
    throw error;
  }
  return launched;
}

/** The pids of a process's descendants whose command line holds `needle` (Linux /proc). */
export function descendantPids(rootPid: number, needle: string): number[] {
  const processes = fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return [{ pid: Number(pid), ppid, cmdline: fs.readFileSync(`/proc/${pid}/cmdline`, "utf8") }];
      } catch {
        return []; // gone meanwhile
      }
    });
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const child of processes.filter((entry) => entry.ppid === parent)) {
      if (child.cmdline.includes(needle)) found.push(child.pid);
      visit(child.pid);
    }
  };
  visit(rootPid);
  return found;
}
