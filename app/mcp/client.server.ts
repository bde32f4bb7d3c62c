/**
 * The app's MCP client (docs/decisions/089): one session with one MCP server
 * over HTTP, through the official SDK. It connects with Streamable HTTP and
 * falls back to the older HTTP+SSE transport when the server answers as an
 * old one; lists the server's tools, following its list changes; calls a tool
 * with a deadline and cancellation the server is told about; and turns every
 * result and every failure into a bounded text framed as untrusted data, so a
 * caller (the AI SDK bridge in ai-tools.server.ts) never sees a rejection.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { JSONSchema7 } from "ai";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type ElicitRequest,
  type ElicitResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { getConfig } from "~/config.server";
import { log } from "~/log/logger.server";
import { OutboundError } from "~/net/outbound.server";
import { describeError, escapeForLog } from "~/log/safe-log.server";
import { trackMcpCall } from "~/metrics/metrics.server";
import { boundedFetch, isInjectedFailure, ResponseTooLargeError } from "./bounded-fetch.server";
import { resultText, untrustedFrame, type ResultItem } from "./result-text.server";

export interface McpTarget {
  /** The server's endpoint, e.g. https://mcp.example.com/mcp (or an old server's /sse). */
  url: string;
  /** The registry's name for the server: labels metrics and logs, and frames results. Default: the URL's host. */
  label?: string;
  /** Static headers an admin set, e.g. `Authorization: Bearer …`; sent with every request. */
  headers?: Record<string, string>;
  /** The outbound fetch (the address-checking one); default: the global fetch. Every answer is read through a byte limit. */
  fetch?: typeof fetch;
  /** OAuth for the server, handed to the SDK's transports as it is. */
  authProvider?: OAuthClientProvider;
}

export type McpElicitationHandler = (request: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>;

export interface McpConnectOptions {
  /** Deadline for connecting and initializing (both transports together), and for each page of the tool list. */
  timeoutMs?: number;
  /** Called with the new list after the server said its tools changed. */
  onToolsChanged?: (tools: McpToolInfo[]) => void;
  /** Answers a server's request for input from the user (form mode); default: decline. */
  onElicitation?: McpElicitationHandler;
  /** The most one answer (one JSON body, one event of a stream) may weigh; default 8 MiB. */
  maxResponseBytes?: number;
}

export interface McpToolInfo {
  name: string;
  title?: string;
  description: string;
  inputSchema: JSONSchema7;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

export type McpFailure = "timeout" | "cancelled" | "protocol" | "transport";

export interface McpToolOutcome {
  /** For the model: a frame line naming the server and tool, then the result as text (capped). */
  text: string;
  /** The tool reported an error (`isError`), or the call failed. */
  isError: boolean;
  /** The text was cut at MCP_RESULT_MAX_CHARS. */
  truncated: boolean;
  /** Set when there is no result from the tool: why. */
  failure?: McpFailure;
}

export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface McpCallOptions {
  /** Aborting cancels the call: the server is sent notifications/cancelled and the outcome is "cancelled". */
  signal?: AbortSignal;
  /** Longest wait for the result or the next progress report; default MCP_CALL_TIMEOUT_MS. */
  timeoutMs?: number;
  onProgress?: (progress: McpProgress) => void;
  /**
   * Answers the server's requests for input made while this call runs (they
   * come on the call's own response stream); the call's deadline stops while
   * the user is asked. Default: the connection's onElicitation.
   */
  onElicitation?: McpElicitationHandler;
}

export interface McpSession {
  server: { name: string; version: string; instructions?: string };
  transport: "streamable-http" | "sse";
  /** Every page of the server's tools; kept until the server says they changed. */
  listTools(): Promise<McpToolInfo[]>;
  /** Never rejects: a failure is an outcome with `failure` set. */
  callTool(name: string, args: unknown, options?: McpCallOptions): Promise<McpToolOutcome>;
  close(): Promise<void>;
}

export type McpConnectFailure = "timeout" | "unauthorized" | "http" | "unreachable" | "protocol";

/** Why a server could not be connected to; the message is the app's own, fit to show an admin. */
export class McpConnectError extends Error {
  constructor(
    readonly kind: McpConnectFailure,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "McpConnectError";
  }
}

const CLIENT_INFO = { name: "nuvara", version: "2.0.0" };
const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Progress restarts a call's deadline, but never past this many deadlines in all. */
const MAX_TOTAL_TIMEOUTS = 10;
/** A server whose cursor never ends stops being listed here. */
const MAX_TOOL_PAGES = 100;
const MAX_DESCRIPTION_CHARS = 4_000;
/** The SDK's own deadline for a call, set out of the way: the call's clock below is the deadline. */
const SDK_CALL_TIMEOUT_MS = 24 * 60 * 60 * 1000;
/** A close tells a Streamable HTTP server the session is over, without waiting longer than this. */
const TERMINATE_WAIT_MS = 2_000;

class Deadline extends Error {}

/**
 * A call's deadline: `ms` for the result or the next progress report, never
 * past MAX_TOTAL_TIMEOUTS of them in all, and stopped while the user is asked
 * for input (a person may take longer than a tool). Aborts its signal with the
 * SDK's own timeout error, so the call ends as a timeout.
 */
class CallClock {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  private timer?: NodeJS.Timeout;
  private spent = 0;
  private runningSince = performance.now();
  private pauses = 0;

  constructor(private readonly ms: number) {
    this.arm();
  }

  private left(): number {
    return this.ms * MAX_TOTAL_TIMEOUTS - this.spent - (performance.now() - this.runningSince);
  }

  private arm() {
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => this.controller.abort(new McpError(ErrorCode.RequestTimeout, "Request timed out")),
      Math.max(0, Math.min(this.ms, this.left())),
    );
  }

  progressed() {
    if (this.pauses === 0) this.arm();
  }

  pause() {
    if (this.pauses++ > 0) return;
    clearTimeout(this.timer);
    this.spent += performance.now() - this.runningSince;
  }

  resume() {
    if (--this.pauses > 0) return;
    this.runningSince = performance.now();
    this.arm();
  }

  stop() {
    clearTimeout(this.timer);
  }
}

/** The call a server's request for input arrives within: it comes on that call's response stream, in its async context. */
interface CallContext {
  onElicitation?: McpElicitationHandler;
  signal?: AbortSignal;
  clock: CallClock;
}
const currentCall = new AsyncLocalStorage<CallContext>();

/** `work`, or a Deadline error after `ms` (and `onLate` run, to stop the work). */
async function within<T>(ms: number, work: Promise<T>, onLate: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate();
      reject(new Deadline());
    }, ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function plainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toToolInfo(tool: Tool): McpToolInfo {
  const hints = tool.annotations ?? {};
  const annotations = Object.fromEntries(
    (["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const)
      .filter((hint) => typeof hints[hint] === "boolean")
      .map((hint) => [hint, hints[hint]]),
  );
  const title = tool.title ?? (typeof hints.title === "string" ? hints.title : undefined);
  return {
    name: tool.name,
    ...(title ? { title } : {}),
    description: (tool.description ?? "").slice(0, MAX_DESCRIPTION_CHARS),
    inputSchema: tool.inputSchema as JSONSchema7,
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
}

/** The old HTTP+SSE servers answer a POST to their endpoint with 404 or 405 (the spec's backwards-compatibility rule). */
function answeredAsOldServer(error: unknown): boolean {
  return error instanceof StreamableHTTPError && (error.code === 404 || error.code === 405);
}

function errorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

/** The outbound guard's error behind `error`, however the SDK wrapped it. */
function outboundErrorIn(error: unknown): OutboundError | undefined {
  for (let at = error, depth = 0; at && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    if (at instanceof OutboundError) return at;
  }
  return undefined;
}

function connectError(error: unknown, timeoutMs: number): McpConnectError {
  if (error instanceof McpConnectError) return error;
  if (error instanceof Deadline || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)) {
    return new McpConnectError("timeout", `The MCP server did not complete the handshake within ${timeoutMs} ms.`);
  }
  // The outbound guard refused the address, or gave up: its own words say which (docs/decisions/088).
  const outbound = outboundErrorIn(error);
  if (outbound) {
    return new McpConnectError("unreachable", `The MCP server could not be reached: ${outbound.message}`, undefined, {
      cause: error,
    });
  }
  const code = errorCode(error);
  const name = (error as Error | null)?.name;
  if (name === "UnauthorizedError" || code === 401 || code === 403) {
    return new McpConnectError("unauthorized", "The MCP server refused the credentials.", code, { cause: error });
  }
  if (!(error instanceof McpError) && code !== undefined && code >= 100) {
    return new McpConnectError("http", `The MCP server answered HTTP ${code}.`, code, { cause: error });
  }
  if (error instanceof TypeError && !(error instanceof ResponseTooLargeError)) {
    return new McpConnectError("unreachable", "The MCP server could not be reached.", undefined, { cause: error });
  }
  return new McpConnectError("protocol", "The MCP server did not answer as an MCP server.", undefined, {
    cause: error,
  });
}

function failureOf(error: unknown, signal: AbortSignal | undefined): McpFailure {
  if (signal?.aborted) return "cancelled";
  if (error instanceof McpError) {
    if (isInjectedFailure(error.data)) return error.data.failure;
    if (error.code === ErrorCode.RequestTimeout) return "timeout";
    if (error.code === ErrorCode.ConnectionClosed) return "transport";
    return "protocol";
  }
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (error instanceof ResponseTooLargeError || cause instanceof ResponseTooLargeError) return "protocol";
  const name = (error as Error | null)?.name;
  if (
    error instanceof SyntaxError ||
    name === "ZodError" ||
    (error instanceof StreamableHTTPError && error.code === -1)
  ) {
    return "protocol";
  }
  return "transport";
}

/** What the model reads when there is no result: the app's words, with a server's own error message (short) when it sent one. */
function failureText(failure: McpFailure, error: unknown, timeoutMs: number): string {
  const injected = error instanceof McpError && isInjectedFailure(error.data) ? error.data.reason : undefined;
  const cause = (error as { cause?: unknown } | null)?.cause;
  switch (failure) {
    case "cancelled":
      return "The call was cancelled before the tool answered; the server was told to stop.";
    case "timeout":
      return `The tool did not answer within ${Math.round(timeoutMs / 1000)} s; the call was cancelled and the server told to stop.`;
    case "transport":
      return injected === "dropped"
        ? "The server dropped the connection before the tool answered."
        : "The connection to the server failed before the tool answered.";
    case "protocol":
      if (
        injected === "too-large" ||
        error instanceof ResponseTooLargeError ||
        cause instanceof ResponseTooLargeError
      ) {
        return "The server's answer was too large and was dropped.";
      }
      if (error instanceof McpError) return `The server refused the call: ${error.message.slice(0, 500)}`;
      return "The server's answer was not a valid MCP message.";
  }
}

class Session implements McpSession {
  server: McpSession["server"] = { name: "", version: "" };
  transport: McpSession["transport"] = "streamable-http";
  private tools?: Promise<McpToolInfo[]>;
  private listedNames = new Set<string>();
  private closed = false;

  constructor(
    readonly client: Client,
    private readonly label: string,
    private readonly options: McpConnectOptions,
  ) {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.toolsChanged());
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => this.elicit(request.params, extra.signal));
    client.onerror = (error) => {
      // Stream hiccups the SDK recovers from (reconnects) land here too: kept out of the usual log.
      log().debug({ mcpServer: escapeForLog(label) }, `[mcp] ${escapeForLog(label)}: ${describeError(error)}`);
    };
  }

  opened(transport: McpSession["transport"]) {
    const info = this.client.getServerVersion();
    const instructions = this.client.getInstructions();
    this.transport = transport;
    this.server = {
      name: info?.name ?? "",
      version: info?.version ?? "",
      ...(instructions ? { instructions } : {}),
    };
  }

  listTools(): Promise<McpToolInfo[]> {
    if (!this.tools) {
      const listing = this.listAllTools();
      this.tools = listing;
      listing.catch(() => {
        if (this.tools === listing) this.tools = undefined;
      });
    }
    return this.tools;
  }

  private async listAllTools(): Promise<McpToolInfo[]> {
    if (!this.client.getServerCapabilities()?.tools) return [];
    const timeout = this.options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const byName = new Map<string, McpToolInfo>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await this.client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
      for (const tool of result.tools) if (!byName.has(tool.name)) byName.set(tool.name, toToolInfo(tool));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    const tools = [...byName.values()];
    this.listedNames = new Set(tools.map((tool) => tool.name));
    return tools;
  }

  private async toolsChanged() {
    this.tools = undefined;
    // Nobody to tell: the next listTools() lists afresh. A closed session lists nothing.
    if (!this.options.onToolsChanged || this.closed) return;
    try {
      const tools = await this.listTools();
      if (!this.closed) this.options.onToolsChanged(tools);
    } catch (error) {
      log().warn(
        { mcpServer: escapeForLog(this.label) },
        `[mcp] ${escapeForLog(this.label)}: listing changed tools failed: ${describeError(error)}`,
      );
    }
  }

  private async elicit(request: ElicitRequest["params"], signal: AbortSignal): Promise<ElicitResult> {
    const call = currentCall.getStore();
    const answer = call?.onElicitation ?? this.options.onElicitation;
    if (!answer) return { action: "decline" };
    call?.clock.pause();
    try {
      return await answer(request, call?.signal ? AbortSignal.any([signal, call.signal]) : signal);
    } catch (error) {
      log().warn(
        { mcpServer: escapeForLog(this.label) },
        `[mcp] ${escapeForLog(this.label)}: answering a request for input failed: ${describeError(error)}`,
      );
      return { action: "cancel" };
    } finally {
      call?.clock.resume();
    }
  }

  async callTool(name: string, args: unknown, options: McpCallOptions = {}): Promise<McpToolOutcome> {
    const metrics = trackMcpCall(this.label, this.listedNames.has(name) ? name : "other");
    const timeoutMs = options.timeoutMs ?? getConfig().mcp.callTimeoutMs;
    const outcome = await this.outcomeOf(name, args, options, timeoutMs);
    metrics.end(outcome.failure ?? (outcome.isError ? "error" : "ok"));
    return outcome;
  }

  private async outcomeOf(
    name: string,
    args: unknown,
    options: McpCallOptions,
    timeoutMs: number,
  ): Promise<McpToolOutcome> {
    const failed = (failure: McpFailure, why: string): McpToolOutcome => ({
      text: `${untrustedFrame(this.label, name, "failure")}\n${why}`,
      isError: true,
      truncated: false,
      failure,
    });
    if (options.signal?.aborted) return failed("cancelled", "The call was cancelled before it was sent.");
    if (!plainObject(args)) return failed("protocol", "The tool's arguments must be a JSON object.");
    const clock = new CallClock(timeoutMs);
    const call: CallContext = { onElicitation: options.onElicitation, signal: options.signal, clock };
    try {
      const result = await currentCall.run(call, () =>
        this.client.callTool({ name, arguments: args }, undefined, {
          signal: options.signal ? AbortSignal.any([options.signal, clock.signal]) : clock.signal,
          timeout: SDK_CALL_TIMEOUT_MS,
          onprogress: ({ progress, total, message }) => {
            clock.progressed();
            this.reportProgress(options, { progress, total, message });
          },
        }),
      );
      const content =
        "content" in result
          ? (result.content as ResultItem[])
          : [{ type: "text", text: JSON.stringify(result.toolResult) }];
      const { text, truncated } = resultText(
        { content, structuredContent: result.structuredContent },
        getConfig().mcp.resultMaxChars,
      );
      const isError = result.isError === true;
      return { text: `${untrustedFrame(this.label, name, isError ? "error" : "result")}\n${text}`, isError, truncated };
    } catch (error) {
      const failure = failureOf(error, options.signal);
      if (failure !== "cancelled") {
        log().warn(
          { mcpServer: escapeForLog(this.label), failure },
          `[mcp] ${escapeForLog(this.label)}: a tool call failed (${failure}): ${describeError(error)}`,
        );
      }
      return failed(failure, failureText(failure, error, timeoutMs));
    } finally {
      clock.stop();
    }
  }

  private reportProgress(options: McpCallOptions, progress: McpProgress) {
    try {
      options.onProgress?.({
        progress: progress.progress,
        ...(progress.total !== undefined ? { total: progress.total } : {}),
        ...(progress.message !== undefined ? { message: progress.message } : {}),
      });
    } catch (error) {
      log().warn(`[mcp] a progress callback failed: ${describeError(error)}`);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const transport = this.client.transport;
    if (transport instanceof StreamableHTTPClientTransport) {
      await within(TERMINATE_WAIT_MS, transport.terminateSession(), () => undefined).catch(() => undefined);
    }
    await this.client.close();
  }
}

function newSession(label: string, options: McpConnectOptions): Session {
  // Form-mode input only (a URL to open needs the page); applyDefaults fills what the user left at a field's default.
  const client = new Client(CLIENT_INFO, { capabilities: { elicitation: { form: { applyDefaults: true } } } });
  return new Session(client, label, options);
}

type TransportOptions = {
  fetch: typeof fetch;
  authProvider?: OAuthClientProvider;
  requestInit?: RequestInit;
};

async function open(
  session: Session,
  transport: StreamableHTTPClientTransport | SSEClientTransport,
  ms: number,
): Promise<void> {
  await within(ms, session.client.connect(transport, { timeout: ms }), () => void session.client.close());
}

/**
 * A session with the MCP server at `target.url`: Streamable HTTP, or the older
 * HTTP+SSE transport when the server answers the first POST with 404 or 405.
 * Throws McpConnectError.
 */
export async function connectMcp(target: McpTarget, options: McpConnectOptions = {}): Promise<McpSession> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const url = new URL(target.url);
  const label = target.label ?? url.host;
  const transportOptions: TransportOptions = {
    fetch: boundedFetch(target.fetch ?? fetch, options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES),
    ...(target.authProvider ? { authProvider: target.authProvider } : {}),
    ...(target.headers ? { requestInit: { headers: target.headers } } : {}),
  };
  const deadline = performance.now() + timeoutMs;
  const streamable = newSession(label, options);
  try {
    await open(streamable, new StreamableHTTPClientTransport(url, transportOptions), timeoutMs);
    streamable.opened("streamable-http");
    return streamable;
  } catch (error) {
    if (!answeredAsOldServer(error)) throw connectError(error, timeoutMs);
  }
  const sse = newSession(label, options);
  try {
    await open(sse, new SSEClientTransport(url, transportOptions), Math.max(1, deadline - performance.now()));
    sse.opened("sse");
    return sse;
  } catch (error) {
    throw connectError(error, timeoutMs);
  }
}
