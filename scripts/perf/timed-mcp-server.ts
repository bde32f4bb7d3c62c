import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * The MCP server `npm run bench -- --tools` calls (scripts/perf/tools.ts):
 * built with the SDK like tests/support/tiny-mcp-server.ts, on 127.0.0.1
 * in the bench's own process, so its times share the bench's clock. Its one
 * tool, `wait`, sleeps `ms` and answers; for each call it notes when the
 * HTTP request arrived, when the handler started and returned, and when the
 * answer was sent, keyed by the call's `tag` argument.
 */
export interface ServedCall {
  tag: string;
  /** performance.now() at each point of the exchange. */
  arrivedAt: number;
  startedAt: number;
  returnedAt: number;
  sentAt: number;
  /** Whether the request came on a TCP connection no request had come on before. */
  onNewConnection: boolean;
}

export interface TimedMcpServer {
  url: string;
  readonly calls: ReadonlyMap<string, ServedCall>;
  /** JSON-RPC requests received, by method ("tools/list", "initialize", …). */
  readonly requestsByMethod: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

export const WAIT_TOOL = "wait";

const waitTool = {
  name: WAIT_TOOL,
  description: "Waits the given number of milliseconds, then says so.",
  inputSchema: {
    type: "object" as const,
    properties: { ms: { type: "number" }, tag: { type: "string" } },
    required: ["ms"],
  },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

interface JsonRpcCall {
  method?: string;
  params?: { name?: string; arguments?: { tag?: unknown } };
}

function tagOf(body: JsonRpcCall | undefined): string | undefined {
  if (body?.method !== "tools/call") return undefined;
  const tag = body.params?.arguments?.tag;
  return typeof tag === "string" ? tag : undefined;
}

export async function startTimedMcpServer(): Promise<TimedMcpServer> {
  const calls = new Map<string, ServedCall>();
  const requestsByMethod = new Map<string, number>();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const usedSockets = new WeakSet<Socket>();

  function sdkServer(): Server {
    const server = new Server({ name: "bench", version: "0.0.1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [waitTool] }));
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
      const startedAt = performance.now();
      const { ms, tag } = (request.params.arguments ?? {}) as { ms?: number; tag?: string };
      await sleep(Number(ms ?? 0));
      const call = typeof tag === "string" ? calls.get(tag) : undefined;
      if (call) Object.assign(call, { startedAt, returnedAt: performance.now() });
      return { content: [{ type: "text", text: `Waited ${ms} ms.` }] };
    });
    return server;
  }

  async function newSession(): Promise<StreamableHTTPServerTransport> {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await sdkServer().connect(transport);
    return transport;
  }

  /** Notes the call before the SDK sees it, and when its answer has left. */
  function watch(body: JsonRpcCall | undefined, req: IncomingMessage, res: ServerResponse, arrivedAt: number) {
    if (body?.method) requestsByMethod.set(body.method, (requestsByMethod.get(body.method) ?? 0) + 1);
    const onNewConnection = !usedSockets.has(req.socket);
    usedSockets.add(req.socket);
    const tag = tagOf(body);
    if (!tag) return;
    const call: ServedCall = { tag, arrivedAt, startedAt: NaN, returnedAt: NaN, sentAt: NaN, onNewConnection };
    calls.set(tag, call);
    res.once("finish", () => (call.sentAt = performance.now()));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const arrivedAt = performance.now();
    const raw = req.method === "POST" ? await readBody(req) : "";
    const body: unknown = raw ? JSON.parse(raw) : undefined;
    watch(body as JsonRpcCall | undefined, req, res, arrivedAt);
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (!transport && !sessionId && isInitializeRequest(body)) transport = await newSession();
    if (!transport) {
      res.writeHead(404).end();
      return;
    }
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    requestsByMethod,
    async close() {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
