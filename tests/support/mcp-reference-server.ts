import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * The MCP reference server (@modelcontextprotocol/server-everything) as a
 * child process on 127.0.0.1 and a port the OS picks: over Streamable HTTP
 * (its endpoint is /mcp) or over the older HTTP+SSE transport (/sse). The
 * server listens on every interface at $PORT; tests/support/listen-on-loopback.mjs,
 * preloaded, keeps it on loopback and reports the port it got.
 */
export interface ReferenceServer {
  /** The endpoint a client connects to. */
  url: string;
  /** What it printed so far (it logs each request it receives). */
  output(): string;
  stop(): Promise<void>;
}

const ENTRY = path.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const PRELOAD = pathToFileURL(path.resolve("tests/support/listen-on-loopback.mjs")).href;
const PORT_LINE = /listening on loopback port (\d+)/;
const MAX_OUTPUT = 1_000_000;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startReferenceServer(
  transport: "streamableHttp" | "sse",
  { port: wanted = 0 }: { port?: number } = {},
): Promise<ReferenceServer> {
  const child = spawn(process.execPath, ["--import", PRELOAD, ENTRY, transport], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PORT: String(wanted) },
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-MAX_OUTPUT);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited(child);
  };
  const port = await new Promise<number>((resolve, reject) => {
    const onData = () => {
      const match = PORT_LINE.exec(output);
      if (match) {
        child.stderr!.off("data", onData);
        resolve(Number(match[1]));
      }
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code, signal) =>
      reject(new Error(`the reference server exited (${code ?? signal}) before listening:\n${output}`)),
    );
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  const endpoint = transport === "sse" ? "/sse" : "/mcp";
  return { url: `http://127.0.0.1:${port}${endpoint}`, output: () => output, stop };
}
