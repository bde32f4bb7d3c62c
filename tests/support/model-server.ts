/**
 * A scripted OpenAI-compatible model server over real HTTP on 127.0.0.1.
 *
 * Tests queue the replies they want (text, tool calls, HTTP errors, broken
 * bodies, stalls, dropped connections) and inspect what the client sent and
 * whether it hung up early. With nothing queued, it echoes the last user
 * message word by word, so it also serves as a stand-in model for manual runs
 * and benchmarks:
 *
 *   tsx tests/support/model-server.ts --port 11500 [--chunk-delay-ms 20]
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";

/** A text reply: a string is streamed word by word, an array chunk by chunk. */
export interface TextReply {
  type: "text";
  text: string | string[];
  /** Pause before each streamed chunk ("slow streaming"). */
  chunkDelayMs?: number;
  /** OpenAI finish_reason; "stop" unless given. */
  finishReason?: string;
}

export interface ScriptedToolCall {
  /** Tool call id; `call_<n>` unless given. */
  id?: string;
  name: string;
  /** An object is sent as JSON; a string is sent verbatim (e.g. broken JSON). */
  arguments: Record<string, unknown> | string;
}

/** The model asks for tool calls (finish_reason "tool_calls"). */
export interface ToolCallReply {
  type: "tool-calls";
  calls: ScriptedToolCall[];
  chunkDelayMs?: number;
}

/** An HTTP error with an OpenAI-style `{ error: { message } }` body. */
export interface HttpErrorReply {
  type: "http-error";
  status: number;
  message?: string;
  /** Sent as the Retry-After header (seconds), as rate limiters do with 429. */
  retryAfterSeconds?: number;
}

/** Status 200 with a body the client cannot parse. */
export interface MalformedReply {
  type: "malformed";
}

/** Read the request and never answer. */
export interface StallReply {
  type: "stall";
}

/** Start answering, send these chunks, then destroy the connection. */
export interface DropReply {
  type: "drop";
  text: string | string[];
  /** Pause before each chunk and before the cut; 10 ms unless given. */
  chunkDelayMs?: number;
}

export type FailureMode = HttpErrorReply | MalformedReply | StallReply | DropReply;
export type ScriptedReply = TextReply | ToolCallReply | FailureMode;

export interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface ChatTool {
  type: string;
  function: { name: string; description?: string; parameters?: unknown };
}

/** The fields of a chat completion request the tests look at; the rest is kept as sent. */
export interface ChatCompletionRequest {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: ChatMessage[];
  tools?: ChatTool[];
  [field: string]: unknown;
}

/**
 * How the exchange ended: the server finished its answer, the client hung up
 * first, the server dropped the connection on purpose, or the server was
 * closed while the request was still open.
 */
export type RequestOutcome = "completed" | "aborted" | "dropped" | "server-closed";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined for requests without one. */
  body: ChatCompletionRequest | undefined;
  /** Settles when the connection for this request is done. */
  outcome: Promise<RequestOutcome>;
}

export interface ModelServer {
  /** Base URL ending in /v1, e.g. http://127.0.0.1:41234/v1. */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Requests whose client hung up before the answer was complete. */
  readonly abortedCount: number;
  /** Replies not yet used. */
  readonly queuedReplies: number;
  /** Queue one-shot replies for the next chat completion requests, in order. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Answer every request (chat and /models) this way until set to null; overrides the queue. */
  setFailureMode(mode: FailureMode | null): void;
  /** Forget queued replies, recorded requests and the failure mode. */
  reset(): void;
  close(): Promise<void>;
}

export interface ModelServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Model ids listed by GET /v1/models. */
  models?: string[];
  /** Pause before each chunk of the default echo reply. */
  echoChunkDelayMs?: number;
}

const DEFAULT_MODELS = ["test-model"];

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const models = options.models ?? DEFAULT_MODELS;
  const echoChunkDelayMs = options.echoChunkDelayMs ?? 0;
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  let failureMode: FailureMode | null = null;
  let abortedCount = 0;
  let resets = 0;
  let closing = false;
  let completionCounter = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      // A bug in the test server must not hang the test: answer 500 if still possible.
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Watch the connection before reading the body, so an early hang-up is not missed.
    const connection = trackConnection(res, () => closing);
    const rawBody = await readBody(req);
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    let body: ChatCompletionRequest | undefined;
    let bodyIsInvalid = false;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody) as ChatCompletionRequest;
      } catch {
        bodyIsInvalid = true;
      }
    }

    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path,
      headers: req.headers,
      body,
      outcome: connection.outcome,
    };
    requests.push(recorded);
    const generation = resets;
    void connection.outcome.then((outcome) => {
      // A request left over from before reset() must not count against the next test.
      if (outcome === "aborted" && generation === resets) abortedCount += 1;
    });

    if (req.method === "GET" && path === "/v1/models") {
      if (failureMode) return answerWithFailure(failureMode, res, connection, false);
      return sendJson(res, 200, {
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "nuvara-test" })),
      });
    }

    if (req.method === "POST" && path === "/v1/chat/completions") {
      if (bodyIsInvalid || !body) {
        return sendJson(res, 400, { error: { message: "Request body is not valid JSON" } });
      }
      const reply = failureMode ?? queue.shift() ?? echoReply(body, echoChunkDelayMs);
      completionCounter += 1;
      const context: ReplyContext = {
        res,
        connection,
        request: body,
        completionId: `chatcmpl-${completionCounter}`,
        stream: body.stream === true,
      };
      return answer(reply, context);
    }

    sendJson(res, 404, { error: { message: `No route for ${req.method} ${path}` } });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get abortedCount() {
      return abortedCount;
    },
    get queuedReplies() {
      return queue.length;
    },
    enqueue(...replies) {
      queue.push(...replies);
    },
    setFailureMode(mode) {
      failureMode = mode;
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
      failureMode = null;
      abortedCount = 0;
      resets += 1;
    },
    close() {
      closing = true;
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Stalled and keep-alive connections would otherwise keep close() waiting forever.
        server.closeAllConnections();
      });
    },
  };
}

interface Connection {
  /** True once the socket is gone; writers stop then. */
  readonly isClosed: () => boolean;
  /** Marks the coming close as intended by the server (a "drop" reply). */
  markDropped(): void;
  outcome: Promise<RequestOutcome>;
}

function trackConnection(res: ServerResponse, serverIsClosing: () => boolean): Connection {
  let closed = false;
  let dropped = false;
  const outcome = new Promise<RequestOutcome>((resolve) => {
    res.on("close", () => {
      closed = true;
      if (dropped) resolve("dropped");
      else if (res.writableFinished) resolve("completed");
      else if (serverIsClosing()) resolve("server-closed");
      else resolve("aborted");
    });
  });
  return {
    isClosed: () => closed,
    markDropped: () => {
      dropped = true;
    },
    outcome,
  };
}

interface ReplyContext {
  res: ServerResponse;
  connection: Connection;
  request: ChatCompletionRequest;
  completionId: string;
  stream: boolean;
}

async function answer(reply: ScriptedReply, context: ReplyContext): Promise<void> {
  switch (reply.type) {
    case "text":
      return answerText(reply, context);
    case "tool-calls":
      return answerToolCalls(reply, context);
    default:
      return answerWithFailure(reply, context.res, context.connection, context.stream);
  }
}

async function answerText(reply: TextReply, context: ReplyContext): Promise<void> {
  const chunks = toChunks(reply.text);
  const text = chunks.join("");
  const finishReason = reply.finishReason ?? "stop";
  const usage = usageFor(context.request, text);

  if (!context.stream) {
    return sendJson(context.res, 200, {
      ...completionEnvelope(context, "chat.completion"),
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: finishReason }],
      usage,
    });
  }

  const chunk = (delta: object, finish: string | null = null) => ({
    ...completionEnvelope(context, "chat.completion.chunk"),
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const events: SseEvent[] = [
    { data: chunk({ role: "assistant", content: "" }) },
    ...chunks.map((content) => ({ data: chunk({ content }), delayMs: reply.chunkDelayMs })),
    { data: chunk({}, finishReason) },
  ];
  await streamEvents(context, events, usage);
}

async function answerToolCalls(reply: ToolCallReply, context: ReplyContext): Promise<void> {
  const calls = reply.calls.map((call, index) => ({
    id: call.id ?? `call_${index + 1}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }));
  const usage = usageFor(context.request, calls.map((call) => call.arguments).join(" "));

  if (!context.stream) {
    return sendJson(context.res, 200, {
      ...completionEnvelope(context, "chat.completion"),
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.arguments },
            })),
          },
          finish_reason: "tool_calls",
        },
      ],
      usage,
    });
  }

  const chunk = (delta: object, finish: string | null = null) => ({
    ...completionEnvelope(context, "chat.completion.chunk"),
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const events: SseEvent[] = [{ data: chunk({ role: "assistant", content: null }) }];
  calls.forEach((call, index) => {
    // Like OpenAI: the first delta names the call, later ones carry argument pieces.
    events.push({
      data: chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
      delayMs: reply.chunkDelayMs,
    });
    for (const piece of splitEvery(call.arguments, 12)) {
      events.push({
        data: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }),
        delayMs: reply.chunkDelayMs,
      });
    }
  });
  events.push({ data: chunk({}, "tool_calls") });
  await streamEvents(context, events, usage);
}

async function answerWithFailure(
  failure: FailureMode,
  res: ServerResponse,
  connection: Connection,
  stream: boolean,
): Promise<void> {
  switch (failure.type) {
    case "http-error": {
      const headers: Record<string, string> = {};
      if (failure.retryAfterSeconds !== undefined) headers["retry-after"] = String(failure.retryAfterSeconds);
      const message = failure.message ?? defaultErrorMessage(failure.status);
      return sendJson(res, failure.status, { error: { message, type: "scripted_error", code: failure.status } }, headers);
    }
    case "malformed":
      if (stream) {
        res.writeHead(200, sseHeaders());
        res.write('data: {"choices": [{"delta": {"content": "never closed"\n\n');
        res.end("data: [DONE]\n\n");
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("this is not JSON {");
      }
      return;
    case "stall":
      // Keep the request open; only the client (or close()) ends it.
      return;
    case "drop": {
      // Pauses let the client take in the headers and chunks before the cut,
      // so it sees a stream that broke, not a request that failed.
      const delayMs = failure.chunkDelayMs ?? 10;
      res.writeHead(200, stream ? sseHeaders() : { "content-type": "application/json" });
      res.flushHeaders();
      const envelope = { id: "chatcmpl-drop", object: "chat.completion.chunk", created: 0, model: "scripted" };
      for (const content of toChunks(failure.text)) {
        await sleep(delayMs);
        if (connection.isClosed()) return;
        res.write(
          stream
            ? `data: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`
            : content,
        );
      }
      await sleep(delayMs);
      connection.markDropped();
      res.destroy();
      return;
    }
  }
}

interface SseEvent {
  data: object;
  delayMs?: number;
}

async function streamEvents(context: ReplyContext, events: SseEvent[], usage: Usage): Promise<void> {
  const { res, connection, request } = context;
  res.writeHead(200, sseHeaders());
  res.flushHeaders();
  for (const event of events) {
    await sleep(event.delayMs);
    if (connection.isClosed()) return;
    res.write(`data: ${JSON.stringify(event.data)}\n\n`);
  }
  if (request.stream_options?.include_usage === true) {
    res.write(`data: ${JSON.stringify({ ...completionEnvelope(context, "chat.completion.chunk"), choices: [], usage })}\n\n`);
  }
  res.end("data: [DONE]\n\n");
}

function completionEnvelope(context: ReplyContext, object: string) {
  return {
    id: context.completionId,
    object,
    created: Math.floor(Date.now() / 1000),
    model: context.request.model ?? "scripted",
  };
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Deterministic stand-in for token counts: one token per word. */
function usageFor(request: ChatCompletionRequest, completion: string): Usage {
  const promptTokens = (request.messages ?? []).reduce((sum, message) => sum + countWords(messageText(message)), 0);
  const completionTokens = countWords(completion);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

function echoReply(request: ChatCompletionRequest, chunkDelayMs: number): TextReply {
  const lastUser = [...(request.messages ?? [])].reverse().find((message) => message.role === "user");
  const said = lastUser ? messageText(lastUser).trim() : "";
  return { type: "text", text: `You said: ${said || "(nothing)"}`, chunkDelayMs };
}

function messageText(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  if (Array.isArray(message.content)) {
    return message.content.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join(" ");
  }
  return "";
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Splits before each word, keeping the spacing, so the pieces join back to the exact text. */
function splitIntoWords(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/);
}

function toChunks(text: string | string[]): string[] {
  return typeof text === "string" ? splitIntoWords(text) : text;
}

function splitEvery(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces.length > 0 ? pieces : [""];
}

function defaultErrorMessage(status: number): string {
  if (status === 401) return "Invalid API key";
  if (status === 429) return "Rate limit exceeded";
  if (status >= 500) return "The model server had an internal error";
  return `Request failed with status ${status}`;
}

function sseHeaders(): Record<string, string> {
  return { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function sleep(ms: number | undefined): Promise<void> {
  if (!ms) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function readFlag(args: string[], name: string): number | undefined {
  const index = args.indexOf(name);
  if (index === -1) return undefined;
  const value = Number(args[index + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} needs a non-negative integer`);
  return value;
}

async function runStandalone(args: string[]): Promise<void> {
  const server = await startModelServer({
    port: readFlag(args, "--port"),
    echoChunkDelayMs: readFlag(args, "--chunk-delay-ms"),
  });
  console.log(server.url);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

const entryScript = process.argv[1];
if (entryScript && import.meta.url === pathToFileURL(resolvePath(entryScript)).href) {
  runStandalone(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
