/**
 * A scripted OpenAI-compatible model server over real HTTP on 127.0.0.1.
 *
 * Tests queue the replies they want (text, tool calls, HTTP errors, broken
 * bodies, stalls, dropped connections) and inspect what the client sent and
 * whether it hung up early. With nothing queued, it echoes the last user
 * message word by word, so it also serves as a stand-in model for manual runs
 * and benchmarks. Attachments in that message are described rather than
 * echoed: "[image image/png, 1234 bytes]" (see describeAttachment).
 *
 * A request for a new chat's title (app/chat/title-prompt.ts: its system
 * message says so) is kept apart: it is recorded in `titleRequests`, not in
 * `requests`, and answered with a title queued for a text its prompt carries
 * (enqueueTitle), or else with a 503 (the app then keeps the first-line
 * title) — so the tests of replies neither see titles nor lose queued replies.
 *
 * POST /v1/embeddings answers deterministic bag-of-words vectors (embedText),
 * so texts that share words come out closer than unrelated texts.
 *
 *   tsx tests/support/model-server.ts --port 11500 [--chunk-delay-ms 20] [--embedding-dimensions 64]
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { isTitleRequest } from "../../app/chat/title-prompt";

/** A text reply: a string is streamed word by word, an array chunk by chunk. */
export interface TextReply {
  type: "text";
  text: string | string[];
  /** Pause before each streamed chunk ("slow streaming"). */
  chunkDelayMs?: number;
  /** OpenAI finish_reason; "stop" unless given. */
  finishReason?: string;
  /** Counts reported instead of the stand-in ones (one token a word), e.g. a negative or absurd prompt_tokens. */
  usage?: Partial<Usage>;
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

/*
 * User message content parts as @ai-sdk/openai-compatible sends them. Text
 * files arrive as text parts; image and video files as data: URLs (or the
 * URL given); audio (wav, mp3) as raw base64; PDFs as a file part with a
 * data: URL. Other file types are refused by the provider before sending.
 * Every part declares `text` so `part.text` can be read without narrowing.
 */
export interface ChatTextPart {
  type: "text";
  text: string;
}

export interface ChatImagePart {
  type: "image_url";
  /** A data: URL ("data:image/png;base64,…") or the image's own URL. */
  image_url: { url: string; detail?: string };
  text?: undefined;
}

export interface ChatVideoPart {
  type: "video_url";
  video_url: { url: string };
  text?: undefined;
}

export interface ChatAudioPart {
  type: "input_audio";
  /** Raw base64 (no data: prefix); format "wav" or "mp3". */
  input_audio: { data: string; format: string };
  text?: undefined;
}

export interface ChatFilePart {
  type: "file";
  /** file_data is a data: URL ("data:application/pdf;base64,…"); file_id a provider reference. */
  file: { filename?: string; file_data?: string; file_id?: string };
  text?: undefined;
}

export type ChatContentPart = ChatTextPart | ChatImagePart | ChatVideoPart | ChatAudioPart | ChatFilePart;

export interface ChatMessage {
  role: string;
  content?: string | ChatContentPart[] | null;
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
  /** The longest reply wanted; the text is cut to this many words (one word, one token) with finish_reason "length". */
  max_tokens?: number;
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

/** The fields of an embeddings request; the rest is kept as sent. */
export interface EmbeddingsRequest {
  model?: string;
  /** A string, an array of strings, or token ids (an array, or arrays of them); anything else is answered with 400. */
  input?: unknown;
  encoding_format?: string;
  dimensions?: number;
  [field: string]: unknown;
}

export interface RecordedRequest<Body = ChatCompletionRequest> {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined for requests without one. */
  body: Body | undefined;
  /** Settles when the connection for this request is done. */
  outcome: Promise<RequestOutcome>;
  /** performance.now() in this process when the request arrived (before its body was read). */
  receivedAt: number;
  /** performance.now() when the exchange ended (see `outcome`); undefined until then. */
  endedAt?: number;
}

/** A non-text part of a user message, as the server understood it. */
export interface ReceivedAttachment {
  kind: "image" | "video" | "audio" | "file" | "unknown";
  /** From the data: URL (or the audio format); null when the part was sent by URL or reference. */
  mediaType: string | null;
  /** Decoded size; null when the part was sent by URL or reference. */
  bytes: number | null;
  /** The URL or reference, when the part was not sent inline. */
  url?: string;
  /** A file part's file name. */
  filename?: string;
  /** What the echo reply says for this part, e.g. "[image image/png, 1234 bytes]". */
  description: string;
}

export interface ModelServer {
  /** Base URL ending in /v1, e.g. http://127.0.0.1:41234/v1. */
  readonly url: string;
  /** Every request received, in arrival order (chat, embeddings, /models). */
  readonly requests: readonly RecordedRequest[];
  /** The POST /v1/embeddings requests among `requests`, in arrival order. */
  readonly embeddingsRequests: readonly RecordedRequest<EmbeddingsRequest>[];
  /**
   * Attachments in the last user message of each chat completion request (what
   * the echo reply describes), in arrival order. attachmentsIn() reads any body.
   */
  readonly receivedAttachments: readonly ReceivedAttachment[];
  /** The image parts among receivedAttachments. */
  readonly receivedImages: readonly ReceivedAttachment[];
  /** Requests whose client hung up before the answer was complete. */
  readonly abortedCount: number;
  /** Replies not yet used. */
  readonly queuedReplies: number;
  /** The title requests (app/chat/title-prompt.ts), in arrival order; never in `requests`. */
  readonly titleRequests: readonly RecordedRequest[];
  /** Answers the next title request whose prompt contains `match` with `reply` (one-shot). */
  enqueueTitle(match: string, reply: ScriptedReply): void;
  /** Embeddings failures not yet used. */
  readonly queuedEmbeddingsReplies: number;
  /** Queue one-shot replies for the next chat completion requests, in order. */
  enqueue(...replies: ScriptedReply[]): void;
  /**
   * Queue one-shot failures for the next embeddings requests, in order (a queue
   * of its own: chat replies are not used up by embeddings calls). Once it is
   * empty, embeddings requests get their vectors again.
   */
  enqueueEmbeddings(...failures: FailureMode[]): void;
  /** Answer every request (chat, embeddings and /models) this way until set to null; overrides the queues. */
  setFailureMode(mode: FailureMode | null): void;
  /** Forget queued replies and embeddings failures, recorded requests and the failure mode. */
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
  /** Length of the vectors from POST /v1/embeddings when the request names none; 64 unless given. */
  embeddingDimensions?: number;
}

const DEFAULT_MODELS = ["test-model"];

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const models = options.models ?? DEFAULT_MODELS;
  const echoChunkDelayMs = options.echoChunkDelayMs ?? 0;
  const embeddingDimensions = options.embeddingDimensions ?? DEFAULT_EMBEDDING_DIMENSIONS;
  if (!isPositiveInteger(embeddingDimensions)) throw new Error("embeddingDimensions must be a positive integer");
  const queue: ScriptedReply[] = [];
  const embeddingsQueue: FailureMode[] = [];
  const requests: RecordedRequest[] = [];
  const titleRequests: RecordedRequest[] = [];
  const titleReplies: Array<{ match: string; reply: ScriptedReply }> = [];
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
    const receivedAt = performance.now();
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
      receivedAt,
    };
    void connection.outcome.then(() => (recorded.endedAt = connection.endedAt));
    const asksForTitle = path === "/v1/chat/completions" && isTitleRequest(body);
    (asksForTitle ? titleRequests : requests).push(recorded);
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
      const reply = asksForTitle
        ? (takeTitleReply(body) ?? { type: "http-error", status: 503, message: "no title scripted" })
        : (failureMode ?? queue.shift() ?? echoReply(body, echoChunkDelayMs));
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

    if (req.method === "POST" && path === "/v1/embeddings") {
      if (bodyIsInvalid || !body) {
        return sendJson(res, 400, { error: { message: "Request body is not valid JSON" } });
      }
      const failure = failureMode ?? embeddingsQueue.shift();
      if (failure) return answerWithFailure(failure, res, connection, false);
      return answerEmbeddings(body as EmbeddingsRequest, res, embeddingDimensions);
    }

    sendJson(res, 404, { error: { message: `No route for ${req.method} ${path}` } });
  }

  function takeTitleReply(body: ChatCompletionRequest): ScriptedReply | undefined {
    const prompt = JSON.stringify(body.messages ?? []);
    const index = titleReplies.findIndex((entry) => prompt.includes(JSON.stringify(entry.match).slice(1, -1)));
    return index < 0 ? undefined : titleReplies.splice(index, 1)[0].reply;
  }

  function receivedAttachments(): ReceivedAttachment[] {
    return requests
      .filter((request) => request.method === "POST" && request.path === "/v1/chat/completions")
      .flatMap((request) => {
        const lastUser = lastUserMessage(request.body);
        return lastUser ? attachmentsOfMessage(lastUser) : [];
      });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get embeddingsRequests() {
      return requests.filter(
        (request) => request.method === "POST" && request.path === "/v1/embeddings",
      ) as RecordedRequest<EmbeddingsRequest>[];
    },
    get receivedAttachments() {
      return receivedAttachments();
    },
    get receivedImages() {
      return receivedAttachments().filter((attachment) => attachment.kind === "image");
    },
    get abortedCount() {
      return abortedCount;
    },
    get queuedReplies() {
      return queue.length;
    },
    titleRequests,
    enqueueTitle(match, reply) {
      titleReplies.push({ match, reply });
    },
    get queuedEmbeddingsReplies() {
      return embeddingsQueue.length;
    },
    enqueue(...replies) {
      queue.push(...replies);
    },
    enqueueEmbeddings(...failures) {
      embeddingsQueue.push(...failures);
    },
    setFailureMode(mode) {
      failureMode = mode;
    },
    reset() {
      queue.length = 0;
      embeddingsQueue.length = 0;
      requests.length = 0;
      titleRequests.length = 0;
      titleReplies.length = 0;
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
  /** performance.now() when the socket closed or the answer was complete. */
  readonly endedAt: number | undefined;
}

function trackConnection(res: ServerResponse, serverIsClosing: () => boolean): Connection {
  let closed = false;
  let dropped = false;
  let endedAt: number | undefined;
  const outcome = new Promise<RequestOutcome>((resolve) => {
    res.on("close", () => {
      closed = true;
      endedAt = performance.now();
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
    get endedAt() {
      return endedAt;
    },
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
  const cap = context.request.max_tokens;
  const all = toChunks(reply.text);
  const capped = typeof cap === "number" && countWords(all.join("")) > cap;
  const chunks = capped ? cutToWords(all, cap) : all;
  const text = chunks.join("");
  const finishReason = capped ? "length" : (reply.finishReason ?? "stop");
  const usage = { ...usageFor(context.request, text), ...reply.usage };

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
      return sendJson(
        res,
        failure.status,
        { error: { message, type: "scripted_error", code: failure.status } },
        headers,
      );
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
    res.write(
      `data: ${JSON.stringify({ ...completionEnvelope(context, "chat.completion.chunk"), choices: [], usage })}\n\n`,
    );
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

/** The first `words` words of the chunks (whole chunks, the last one cut). */
function cutToWords(chunks: string[], words: number): string[] {
  const kept: string[] = [];
  let left = words;
  for (const chunk of chunks) {
    const inChunk = countWords(chunk);
    if (inChunk <= left) {
      kept.push(chunk);
      left -= inChunk;
    } else {
      if (left > 0)
        kept.push(
          chunk
            .split(/(?<=\s)(?=\S)/)
            .slice(0, left)
            .join(""),
        );
      break;
    }
  }
  return kept;
}

/** Deterministic stand-in for token counts: one token per word. */
function usageFor(request: ChatCompletionRequest, completion: string): Usage {
  const promptTokens = (request.messages ?? []).reduce((sum, message) => sum + countWords(messageText(message)), 0);
  const completionTokens = countWords(completion);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

function echoReply(request: ChatCompletionRequest, chunkDelayMs: number): TextReply {
  const lastUser = lastUserMessage(request);
  const said = lastUser ? echoText(lastUser).trim() : "";
  return { type: "text", text: `You said: ${said || "(nothing)"}`, chunkDelayMs };
}

function lastUserMessage(request: ChatCompletionRequest | undefined): ChatMessage | undefined {
  const messages = Array.isArray(request?.messages) ? request.messages : [];
  return [...messages].reverse().find((message) => message.role === "user");
}

/**
 * What the echo repeats: the text parts as sent and each other part described,
 * joined with single spaces (for text-only content exactly as before).
 */
function echoText(message: ChatMessage): string {
  if (!Array.isArray(message.content)) return messageText(message);
  return message.content
    .map((part) => (part.type === "text" ? (part.text ?? "") : describeAttachment(part).description))
    .join(" ");
}

/** Text only: attachments do not count towards the stand-in token usage. */
function messageText(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  if (Array.isArray(message.content)) {
    return message.content.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join(" ");
  }
  return "";
}

/** Every non-text part of every message in a chat completion request body, in order. */
export function attachmentsIn(request: ChatCompletionRequest | undefined): ReceivedAttachment[] {
  const messages = Array.isArray(request?.messages) ? request.messages : [];
  return messages.flatMap(attachmentsOfMessage);
}

function attachmentsOfMessage(message: ChatMessage): ReceivedAttachment[] {
  if (!Array.isArray(message.content)) return [];
  return message.content.filter((part) => part.type !== "text").map(describeAttachment);
}

/**
 * Describes a non-text content part the way the echo reply shows it:
 *   "[image image/png, 1234 bytes]"   data: URL (media type as sent, decoded size)
 *   "[image https://…/cat.png]"        any other URL
 *   "[video video/mp4, N bytes]", "[audio audio/wav, N bytes]",
 *   "[file application/pdf, N bytes]", "[file <file_id>]", "[<type>]" otherwise.
 */
export function describeAttachment(part: ChatContentPart | { type: string }): ReceivedAttachment {
  const loose = part as Record<string, unknown>;
  const field = (name: string): Record<string, unknown> => {
    const value = loose[name];
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  };
  const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

  switch (part.type) {
    case "image_url":
      return fromUrl("image", stringOf(field("image_url").url) ?? "");
    case "video_url":
      return fromUrl("video", stringOf(field("video_url").url) ?? "");
    case "input_audio": {
      const audio = field("input_audio");
      const mediaType = `audio/${stringOf(audio.format) ?? "unknown"}`;
      const bytes = Buffer.from(stringOf(audio.data) ?? "", "base64").length;
      return { kind: "audio", mediaType, bytes, description: `[audio ${mediaType}, ${bytes} bytes]` };
    }
    case "file": {
      const file = field("file");
      const filename = stringOf(file.filename);
      const data = stringOf(file.file_data);
      const described = data !== undefined ? fromUrl("file", data) : fromUrl("file", stringOf(file.file_id) ?? "");
      return filename === undefined ? described : { ...described, filename };
    }
    default:
      return { kind: "unknown", mediaType: null, bytes: null, description: `[${part.type}]` };
  }
}

function fromUrl(kind: ReceivedAttachment["kind"], url: string): ReceivedAttachment {
  const data = parseDataUrl(url);
  if (data) {
    return { kind, ...data, description: `[${kind} ${data.mediaType}, ${data.bytes} bytes]` };
  }
  return { kind, mediaType: null, bytes: null, url, description: `[${kind} ${url}]` };
}

/** Media type and decoded size of a data: URL; null for any other URL. */
function parseDataUrl(url: string): { mediaType: string; bytes: number } | null {
  const match = /^data:([^,]*),(.*)$/s.exec(url);
  if (!match) return null;
  const [mediaType = "", ...parameters] = (match[1] ?? "").split(";").map((piece) => piece.trim());
  const payload = match[2] ?? "";
  const isBase64 = parameters.some((parameter) => parameter.toLowerCase() === "base64");
  let bytes: number;
  if (isBase64) {
    bytes = Buffer.from(payload, "base64").length;
  } else {
    try {
      bytes = Buffer.byteLength(decodeURIComponent(payload));
    } catch {
      bytes = Buffer.byteLength(payload);
    }
  }
  return { mediaType: mediaType || "text/plain", bytes };
}

const DEFAULT_EMBEDDING_DIMENSIONS = 64;

/**
 * The server's deterministic embedding: lower-cased words (runs of letters and
 * digits) counted into `dimensions` buckets by their FNV-1a hash, then scaled
 * to length 1. Texts sharing words get a higher cosine similarity than
 * unrelated ones; a text without words gives the zero vector.
 */
export function embedText(text: string, dimensions = DEFAULT_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    const bucket = fnv1a(word) % dimensions;
    vector[bucket] = (vector[bucket] ?? 0) + 1;
  }
  const length = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return length === 0 ? vector : vector.map((value) => value / length);
}

/** 32-bit FNV-1a over the UTF-8 bytes. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function answerEmbeddings(request: EmbeddingsRequest, res: ServerResponse, defaultDimensions: number): void {
  const { input, dimensions = defaultDimensions, encoding_format: encoding = "float" } = request;
  const inputs = embeddingInputs(input);
  if (!inputs) {
    return sendJson(res, 400, {
      error: {
        message: "input must be a string, a non-empty array of strings, or token ids",
        type: "invalid_request_error",
      },
    });
  }
  if (!isPositiveInteger(dimensions)) {
    return sendJson(res, 400, {
      error: { message: "dimensions must be a positive integer", type: "invalid_request_error" },
    });
  }
  if (encoding !== "float" && encoding !== "base64") {
    return sendJson(res, 400, {
      error: { message: "encoding_format must be float or base64", type: "invalid_request_error" },
    });
  }
  const texts = inputs;
  const promptTokens = texts.reduce((sum, text) => sum + countWords(text), 0);
  sendJson(res, 200, {
    object: "list",
    data: texts.map((text, index) => {
      const vector = embedText(text, dimensions);
      // Like OpenAI: base64 is the little-endian float32 array.
      const embedding =
        encoding === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
      return { object: "embedding", index, embedding };
    }),
    model: request.model ?? "scripted",
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  });
}

/** The inputs as texts: a token id stands for the word `t<id>` (one token, one word), as OpenAI takes token arrays. */
function embeddingInputs(input: unknown): string[] | undefined {
  const isTokens = (item: unknown): item is number[] =>
    Array.isArray(item) && item.length > 0 && item.every((id) => Number.isInteger(id) && (id as number) >= 0);
  const asText = (item: unknown) =>
    typeof item === "string" ? item : (item as number[]).map((id) => `t${id}`).join(" ");
  if (typeof input === "string") return [input];
  if (isTokens(input)) return [asText(input)];
  if (!Array.isArray(input) || input.length === 0) return undefined;
  return input.every((item) => typeof item === "string" || isTokens(item)) ? input.map(asText) : undefined;
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
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
    embeddingDimensions: readFlag(args, "--embedding-dimensions"),
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
