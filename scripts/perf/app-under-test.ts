import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startFaultProxy, type FaultProxy } from "../../tests/support/fault-proxy";
import { createAccount, idTokenFor } from "../../tests/support/identity";
import { startModelServer } from "../../tests/support/model-server";
import { buildIfStale, SERVER_BUILD } from "../build-if-stale";
import { freePort, waitFor } from "../local/ports";
import { emulatorAdmin } from "../local/admin-client";
import type { LocalStackOptions } from "../local/stack";

/**
 * The app as `npm run bench` and `npm run load` measure it: built if needed,
 * served by remix-serve in production mode on a free loopback port, in local
 * mode (Auth emulator, Firestore emulator, PGlite or a given PostgreSQL),
 * answering from the scripted model server; plus what both scripts need
 * around it (signed-in users, the stream reader, the server's memory, the
 * report file).
 */
export interface AppUnderTestOptions {
  /** Names the demo Firebase project and the scratch folder. */
  name: string;
  models: string[];
  /** Each backend behind a TCP proxy whose latency the caller sets (bench). */
  proxies?: boolean;
  /** A PostgreSQL database instead of embedded PGlite. */
  databaseUrl?: string;
  /** Pause before each word of the model's echo reply. */
  echoChunkDelayMs?: number;
  /** More variables for the app (e.g. quotas). */
  env?: Record<string, string>;
  /** Opens the V8 inspector on loopback, so heap can be read and a collection forced. */
  inspect?: boolean;
  /** Where the app's stderr goes; inherited unless given. */
  logFile?: string;
  /** How many remix-serve processes serve the app side by side, each on its own port (default 1). */
  instances?: number;
}

export type BackendProxies = Record<"identity" | "firestore" | "postgres", FaultProxy>;

export async function startAppUnderTest(options: AppUnderTestOptions) {
  buildIfStale();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `nuvara-${options.name}-`));
  const stack = await startStackProcess({
    projectId: `demo-nuvara-${options.name}`,
    authHost: `127.0.0.1:${await freePort()}`,
    firestoreHost: `127.0.0.1:${await freePort()}`,
    databaseUrl: options.databaseUrl,
    workDir,
  });
  let proxies: BackendProxies | undefined;
  const databaseUrl = new URL(stack.env.DATABASE_URL);
  if (options.proxies) {
    proxies = {
      identity: await startFaultProxy(stack.env.FIREBASE_AUTH_EMULATOR_HOST),
      firestore: await startFaultProxy(stack.env.FIRESTORE_EMULATOR_HOST),
      postgres: await startFaultProxy(databaseUrl.host),
    };
    databaseUrl.host = proxies.postgres.hostPort;
  }

  const model = await startModelServer({ models: options.models, echoChunkDelayMs: options.echoChunkDelayMs });
  const inspectPort = options.inspect ? await freePort() : undefined;
  const log = options.logFile ? fs.openSync(options.logFile, "w") : "inherit";
  const ports: number[] = [];
  for (let i = 0; i < (options.instances ?? 1); i++) ports.push(await freePort());
  const baseUrls = ports.map((port) => `http://127.0.0.1:${port}`);
  const baseUrl = baseUrls[0];
  // Every instance with the same variables and backends, as in production behind a proxy.
  const spawnServer = (port: number, inspect: boolean): ChildProcess =>
    spawn(
      process.execPath,
      [
        ...(inspect && inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
        path.resolve("node_modules/@remix-run/serve/dist/cli.js"),
        SERVER_BUILD,
      ],
      {
        stdio: ["ignore", "ignore", log],
        env: {
          ...process.env,
          NODE_ENV: "production",
          PORT: String(port),
          HOST: "127.0.0.1",
          FIREBASE_PROJECT_ID: stack.env.FIREBASE_PROJECT_ID,
          FIREBASE_AUTH_EMULATOR_HOST: proxies?.identity.hostPort ?? stack.env.FIREBASE_AUTH_EMULATOR_HOST,
          FIRESTORE_EMULATOR_HOST: proxies?.firestore.hostPort ?? stack.env.FIRESTORE_EMULATOR_HOST,
          DATABASE_URL: databaseUrl.toString(),
          DATABASE_POOL_SIZE: stack.env.DATABASE_POOL_SIZE ?? "10",
          BACKEND_TIMEOUT_MS: "10000",
          LLM_BASE_URL: model.url,
          LLM_MODELS: options.models.join(","),
          ...options.env,
        },
      },
    );
  const servers = ports.map((port, index) => spawnServer(port, index === 0));
  const server = servers[0];
  const stop = async () => {
    for (const running of servers) {
      if (running.exitCode !== null) continue;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGTERM");
      await exited;
    }
    if (typeof log === "number") fs.closeSync(log);
    await model.close();
    for (const proxy of Object.values(proxies ?? {})) await proxy.close();
    await stack.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  };
  try {
    for (const url of baseUrls) await waitFor("the app", async () => (await fetch(`${url}/healthz`)).ok);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    baseUrl,
    /** Every instance's address (baseUrl is the first). */
    baseUrls,
    server,
    model,
    proxies,
    stack,
    /** The DATABASE_URL the app uses (through the proxy when there is one). */
    databaseUrl: databaseUrl.toString(),
    /** A new verified account with this role, signed in through the app's session endpoint. */
    async signIn(role: string, prefix = `${options.name}-${role || "user"}`) {
      const account = await createAccount(stack.admin, { role, prefix });
      const idToken = await idTokenFor(stack.env.FIREBASE_AUTH_EMULATOR_HOST, account);
      const response = await fetch(`${baseUrl}/api/auth/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: baseUrl },
        body: JSON.stringify({ idToken }),
      });
      const cookie = response.headers.get("set-cookie")?.split(";")[0];
      if (!cookie) throw new Error(`Logging in ${account.email} answered ${response.status}: ${await response.text()}`);
      return { ...account, cookie };
    },
    /** The server's resident memory, and its heap when the inspector is open (after a full collection with `gc`). */
    async memory({ gc = false } = {}): Promise<ServerMemory> {
      const rss = rssMb(server.pid!);
      if (!inspectPort) return { rssMb: rss };
      const heap = await inspectHeap(inspectPort, gc);
      return { ...heap, rssMb: gc ? rssMb(server.pid!) : rss };
    },
    stop,
  };
}

export type AppUnderTest = Awaited<ReturnType<typeof startAppUnderTest>>;

/** The local stack in its own process (scripts/perf/stack-process.ts), with an admin client here. */
async function startStackProcess(stackOptions: LocalStackOptions) {
  const child = spawn(
    process.execPath,
    [path.resolve("node_modules/tsx/dist/cli.mjs"), "scripts/perf/stack-process.ts", JSON.stringify(stackOptions)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split("\n")[0];
      if (output.includes("\n")) resolve(JSON.parse(line) as Record<string, string>);
    });
    child.once("exit", (code) => reject(new Error(`The local stack exited (${code}) before it was ready.`)));
  });
  const admin = emulatorAdmin(env.FIREBASE_PROJECT_ID, env.FIREBASE_AUTH_EMULATOR_HOST, env.FIRESTORE_EMULATOR_HOST);
  return {
    env: env as {
      FIREBASE_PROJECT_ID: string;
      FIREBASE_AUTH_EMULATOR_HOST: string;
      FIRESTORE_EMULATOR_HOST: string;
      DATABASE_URL: string;
      DATABASE_POOL_SIZE?: string;
    },
    admin,
    pid: child.pid!,
    async stop() {
      await admin.close();
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** CPU time a process has used, in seconds (user and system; Linux counts in 1/100 s). */
export function cpuSeconds(pid: number) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface ServerMemory {
  rssMb: number;
  heapUsedMb?: number;
  heapTotalMb?: number;
  externalMb?: number;
}

export function rssMb(pid: number) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface InspectorAnswer {
  id?: number;
  error?: { message: string };
  result?: { result?: { value?: string } };
}

/** Reads process.memoryUsage() through the inspector protocol, after HeapProfiler.collectGarbage with `gc`. */
async function inspectHeap(port: number, gc: boolean) {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let nextId = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<InspectorAnswer>((resolve, reject) => {
      const id = ++nextId;
      const onMessage = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data)) as InspectorAnswer;
        if (message.id !== id) return;
        socket.removeEventListener("message", onMessage);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message);
      };
      socket.addEventListener("message", onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    if (gc) await call("HeapProfiler.collectGarbage");
    const answer = await call("Runtime.evaluate", {
      expression: "JSON.stringify(process.memoryUsage())",
      returnByValue: true,
    });
    const usage = JSON.parse(answer.result?.result?.value ?? "{}") as NodeJS.MemoryUsage;
    const mb = (bytes: number) => bytes / 2 ** 20;
    return { heapUsedMb: mb(usage.heapUsed), heapTotalMb: mb(usage.heapTotal), externalMb: mb(usage.external) };
  } finally {
    socket.close();
  }
}

/**
 * Reads a streaming response to its end, counting the lines `isToken`
 * matches; `onLine` sees every line. Returns ms to the first token, the
 * token count and the total time.
 */
export async function readStream(
  response: Response,
  isToken: (line: string) => boolean,
  started: number,
  onLine?: (line: string) => void,
) {
  if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}: ${await response.text()}`);
  const decoder = new TextDecoder();
  let firstTokenMs = NaN;
  let tokens = 0;
  let buffered = "";
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      onLine?.(line);
      if (!isToken(line)) continue;
      tokens++;
      if (Number.isNaN(firstTokenMs)) firstTokenMs = performance.now() - started;
    }
  }
  return { firstTokenMs, tokens, totalMs: performance.now() - started };
}

export const isModelToken = (line: string) => line.startsWith("data: {") && line.includes('"content":"');
export const isAppToken = (line: string) => line.startsWith("data: {") && line.includes('"type":"text-delta"');

/** A POST /api/chat body as the browser sends it; a new conversation unless told otherwise. */
export function chatBody(
  model: string,
  text: string,
  {
    conversationId = randomUUID(),
    create = true,
    messageId = randomUUID(),
  }: { conversationId?: string; create?: boolean; messageId?: string } = {},
) {
  return JSON.stringify({
    conversationId,
    create,
    message: { id: messageId, role: "user", parts: [{ type: "text", text }] },
    model,
  });
}

/** A database of its own on the given server, so the run starts empty and leaves nothing behind. */
export async function freshDatabase(serverUrl: string, purpose: string) {
  const name = `nuvara_${purpose}_${process.pid}`;
  const withServer = async (action: (client: pg.Client) => Promise<unknown>) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await action(client);
    } finally {
      await client.end();
    }
  };
  await withServer((client) => client.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withServer((client) => client.query(`drop database if exists ${name} with (force)`)),
  };
}

/** The value after `--name` on the command line, or the fallback. */
export function option(name: string, fallback: string) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
}

/** The script's arguments as the report shows them: a database URL (which may hold a password) hidden. */
export function argumentsShown() {
  const databaseUrl = option("database-url", "");
  return process.argv
    .slice(2)
    .map((arg) => (arg === databaseUrl ? "postgresql://…" : arg))
    .join(" ");
}

export function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function machineLine() {
  return (
    `on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown CPU"}), ` +
    `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`
  );
}

const BENCHMARKS_FILE = "docs/benchmarks.md";
const MARKED_PART = /<!-- ([\w-]+):start -->[\s\S]*?<!-- \1:end -->/g;

/**
 * docs/benchmarks.md holds `npm run bench`'s report ("bench": everything
 * outside markers) and, after it, parts between `<!-- name:start -->` and
 * `<!-- name:end -->` markers (`npm run load`'s): each run replaces only its
 * own part and keeps the others.
 */
export function writeBenchmarks(part: string, text: string) {
  const current = fs.existsSync(BENCHMARKS_FILE) ? fs.readFileSync(BENCHMARKS_FILE, "utf8") : "# Benchmarks\n";
  const marked = new Map<string, string>();
  let bench = current.replace(MARKED_PART, (block, name: string) => {
    marked.set(name, block);
    return "";
  });
  if (part === "bench") bench = text;
  else marked.set(part, `<!-- ${part}:start -->\n${text.trim()}\n<!-- ${part}:end -->`);
  fs.writeFileSync(BENCHMARKS_FILE, `${[bench.trim(), ...marked.values()].join("\n\n")}\n`);
}
