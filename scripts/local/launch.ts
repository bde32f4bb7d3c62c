import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig, type Config } from "../../app/config.server";
import { listenPlan, localUrl, type ListenPlan } from "../listen-host";
import { DEMO_ACCOUNTS } from "./seed";
import { resetDataDir, startLocalStack } from "./stack";
import { localVapidKeys } from "./vapid";

/**
 * What `npm start` and `npm run dev` share: reading the configuration, local
 * mode's backends (the emulators and embedded PostgreSQL, started once), and
 * supervising the app server — stopping the backends after it, and exiting
 * with its failure when it dies.
 */

export interface Launch {
  config: Config;
  port: string;
  listen: ListenPlan;
  fresh: boolean;
}

/** The configuration and where to listen; an invalid variable ends the process with the reason. */
export function readLaunch(): Launch {
  if (fs.existsSync(".env")) process.loadEnvFile(".env");
  const port = process.env.PORT ?? "3000";
  let config: Config;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const fresh = process.argv.includes("--fresh") || process.env.FRESH === "1";
  return { config, port, listen: listenPlan(config.mode, { HOST: process.env.HOST }, port), fresh };
}

/** The variables the app server gets: where to listen, and in local mode where its backends are. */
export function serverEnv(launch: Launch, backends: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...backends,
    PORT: launch.port,
    ...(launch.listen.host ? { HOST: launch.listen.host } : {}),
  };
}

/**
 * The server's own exit code; a server killed by a signal (the OOM killer's
 * SIGKILL, say) exits as a shell reports it, 128 + the signal's number, so a
 * supervisor sees a failure and restarts it.
 */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0);
}

/** A real project: the server alone; signals go to it and its exit is ours. */
export function superviseAlone(child: ChildProcess) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(exitCodeOf(code, signal)));
}

/** Local mode's backends, with the demo accounts seeded; data kept in LOCAL_DATA_DIR (or .local/). */
export async function startLocalBackends({ config, port, fresh }: Launch) {
  const dataDir = path.resolve(process.env.LOCAL_DATA_DIR ?? `.local/${config.projectId}-${port}`);
  if (fresh) resetDataDir(dataDir);
  console.log(
    `Local mode: starting the Firebase emulators and embedded PostgreSQL (data in ${path.relative(".", dataDir)})…`,
  );
  const stack = await startLocalStack({
    projectId: config.projectId,
    authHost: config.authEmulatorHost!,
    firestoreHost: config.firestoreEmulatorHost!,
    databaseUrl: config.databaseUrl,
    dataDir,
    workDir: path.join(dataDir, "run"),
  });
  await stack.admin.close();
  // Push works out of the box in local mode: a development pair unless one is configured.
  const vapid = config.notify.vapid ? undefined : localVapidKeys(dataDir);
  if (vapid) console.log(vapid.notice);
  return { ...stack, env: { ...stack.env, ...vapid?.env } };
}

type LocalStack = Awaited<ReturnType<typeof startLocalBackends>>;

/** Local mode: Ctrl-C or SIGTERM stops the app first (so it does not see its backends go away), then the backends. */
export function superviseWithBackends(child: ChildProcess, stack: LocalStack) {
  let stopping = false;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  async function shutdown(code: number) {
    if (stopping) return;
    stopping = true;
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await stack.stop();
    process.exit(code);
  }
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  child.on("exit", (code, signal) => void shutdown(exitCodeOf(code, signal)));
}

/** What local mode prints once it is up: where it is, its backends, the demo accounts. */
export function printLocalBanner({ config, port, listen }: Launch, stack: LocalStack, what: string) {
  const url = localUrl(listen.host, port);
  console.log(
    [
      "",
      `Nuvara² ${what} on ${url} (local mode, project ${config.projectId})`,
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

/** A Node program of a package (its bin file), as a child that shares our terminal. */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"], env });
}
