import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, waitFor } from "./ports";

/**
 * The Firebase Auth emulator (firebase-tools), as a child process on the
 * given loopback port. With `persistDir` its accounts are imported at start
 * and exported when it stops (Ctrl-C), so local data survives a restart.
 */
export interface AuthEmulatorOptions {
  host: string;
  port: number;
  projectId: string;
  workDir: string;
  persistDir?: string;
  quiet?: boolean;
}

const FIREBASE_BIN = path.resolve("node_modules/firebase-tools/lib/bin/firebase.js");

export async function startAuthEmulator(options: AuthEmulatorOptions) {
  fs.mkdirSync(options.workDir, { recursive: true });
  const config = {
    emulators: {
      auth: { host: options.host, port: options.port },
      hub: { host: options.host, port: await freePort() },
      logging: { host: options.host, port: await freePort() },
      ui: { enabled: false },
      singleProjectMode: true,
    },
  };
  const configPath = path.join(options.workDir, "firebase.json");
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2));

  const args = [
    FIREBASE_BIN,
    "emulators:start",
    "--only",
    "auth",
    "--project",
    options.projectId,
    "--config",
    configPath,
  ];
  if (options.persistDir) {
    fs.mkdirSync(options.persistDir, { recursive: true });
    if (fs.existsSync(path.join(options.persistDir, "firebase-export-metadata.json"))) {
      args.push("--import", options.persistDir);
    }
    args.push("--export-on-exit", options.persistDir);
  }

  const logPath = path.join(options.workDir, "auth-emulator.log");
  const log = fs.openSync(logPath, "a");
  const child = spawn(process.execPath, args, {
    cwd: options.workDir,
    stdio: ["ignore", log, log],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      NO_UPDATE_NOTIFIER: "1",
    } as NodeJS.ProcessEnv,
  });
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.on("exit", () => ((exited = true), resolve())));

  const url = `http://${options.host}:${options.port}`;
  try {
    await waitFor("The Firebase Auth emulator", async () => {
      if (exited) throw new Error(`The Auth emulator exited; see ${logPath}`);
      return (await fetch(url)).ok;
    });
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n${fs.readFileSync(logPath, "utf8").slice(-2000)}`, { cause: error });
  }

  return {
    hostPort: `${options.host}:${options.port}`,
    logPath,
    /** SIGINT lets it export its accounts before it exits. */
    async stop() {
      if (exited) return;
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}
