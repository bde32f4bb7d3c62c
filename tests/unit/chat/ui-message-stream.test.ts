import http from "node:http";
import type { AddressInfo } from "node:net";
import { createUIMessageStreamResponse, readUIMessageStream, type UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "~/conversation/message-types";
import { StreamChat, type FinishInfo } from "~/components/chat/stream-chat";
import { applyChunk, newReply, readChunks } from "~/components/chat/ui-message-stream";

/**
 * The browser's reader of the chat endpoint's stream (ADR 055) must build the
 * same reply as the AI SDK's own reader for every kind of chunk the endpoint
 * sends: the SDK writes the stream, ours reads it.
 */

const text = (id: string, ...deltas: string[]): UIMessageChunk[] => [
  { type: "text-start", id },
  ...deltas.map((delta): UIMessageChunk => ({ type: "text-delta", id, delta })),
  { type: "text-end", id },
];

const SEQUENCES: Record<string, UIMessageChunk[]> = {
  "a plain reply with the endpoint's data parts": [
    { type: "start", messageId: "reply-1", messageMetadata: { model: "test-model" } },
    { type: "start-step" },
    ...text("t1", "Hello", ", ", "world", " — ünïcode ✓"),
    { type: "finish-step" },
    { type: "data-conversation", data: { id: "c1" }, transient: true },
    { type: "data-saved", data: { conversationId: "c1", replyId: "reply-1" }, transient: true },
    { type: "finish", finishReason: "stop" },
  ],
  "a tool call, its result, then text in the next step": [
    { type: "start", messageId: "reply-2" },
    { type: "start-step" },
    { type: "tool-input-start", toolCallId: "call-1", toolName: "calculator" },
    { type: "tool-input-delta", toolCallId: "call-1", inputTextDelta: '{"expression":' },
    { type: "tool-input-delta", toolCallId: "call-1", inputTextDelta: '"2+2"}' },
    { type: "tool-input-available", toolCallId: "call-1", toolName: "calculator", input: { expression: "2+2" } },
    { type: "tool-output-available", toolCallId: "call-1", output: { result: "4" } },
    { type: "finish-step" },
    { type: "start-step" },
    ...text("t2", "It is ", "4."),
    { type: "finish-step" },
    { type: "finish" },
  ],
  "tool errors, on the input and on the output": [
    { type: "start", messageId: "reply-3" },
    { type: "start-step" },
    {
      type: "tool-input-error",
      toolCallId: "call-a",
      toolName: "convert_units",
      input: { value: "x" },
      errorText: "Bad input",
    },
    { type: "tool-input-start", toolCallId: "call-b", toolName: "calculator" },
    { type: "tool-input-available", toolCallId: "call-b", toolName: "calculator", input: { expression: "1/0" } },
    { type: "tool-output-error", toolCallId: "call-b", errorText: "Division by zero" },
    { type: "finish-step" },
    { type: "finish" },
  ],
  "a server's tool with its title, and its progress replaced in place": [
    { type: "start", messageId: "reply-5" },
    { type: "start-step" },
    { type: "tool-input-start", toolCallId: "call-s", toolName: "everything__long", title: "Long · Everything" },
    { type: "tool-input-delta", toolCallId: "call-s", inputTextDelta: '{"steps":2}' },
    {
      type: "tool-input-available",
      toolCallId: "call-s",
      toolName: "everything__long",
      input: { steps: 2 },
      title: "Long · Everything",
    },
    { type: "data-tool-progress", id: "call-s", data: { toolCallId: "call-s", progress: 1, total: 2 } },
    { type: "data-tool-progress", id: "call-s", data: { toolCallId: "call-s", progress: 2, total: 2 } },
    { type: "tool-output-available", toolCallId: "call-s", output: { text: "Done", isError: false, truncated: false } },
    { type: "finish-step" },
    { type: "finish" },
  ],
  "metadata sent later, two text parts": [
    { type: "start", messageId: "reply-4" },
    ...text("a", "One"),
    { type: "message-metadata", messageMetadata: { status: "completed" } },
    ...text("b", "Two"),
    { type: "finish", messageMetadata: { createdAt: "2026-11-23T00:00:00.000Z" } },
  ],
};

function streamOf(chunks: UIMessageChunk[]): ReadableStream<UIMessageChunk> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/** The SDK's reply, after the last chunk. */
async function sdkReply(chunks: UIMessageChunk[]): Promise<ChatMessage | undefined> {
  let last: ChatMessage | undefined;
  for await (const message of readUIMessageStream<ChatMessage>({ stream: streamOf(chunks) })) last = message;
  return last;
}

/** Ours, read from the bytes the SDK's response writes. */
async function ourReply(chunks: UIMessageChunk[]) {
  const response = createUIMessageStreamResponse({ stream: streamOf(chunks) });
  const state = newReply("generated-id");
  const data: unknown[] = [];
  for await (const chunk of readChunks(response.body!)) applyChunk(state, chunk, (part) => data.push(part));
  return { message: state.message, data };
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe("the browser's reader of the chat stream", () => {
  for (const [name, chunks] of Object.entries(SEQUENCES)) {
    it(`builds the reply the AI SDK builds: ${name}`, async () => {
      const ours = await ourReply(chunks);
      expect(plain(ours.message)).toEqual(plain(await sdkReply(chunks)));
    });
  }

  it("hands the endpoint's transient data parts to onData without adding them to the reply", async () => {
    const { message, data } = await ourReply(SEQUENCES["a plain reply with the endpoint's data parts"]);
    expect(data).toEqual([
      { type: "data-conversation", data: { id: "c1" } },
      { type: "data-saved", data: { conversationId: "c1", replyId: "reply-1" } },
    ]);
    expect(message.parts.map((part) => part.type)).toEqual(["step-start", "text"]);
  });

  it("an error chunk throws the endpoint's words", async () => {
    const state = newReply("x");
    expect(() => applyChunk(state, { type: "error", errorText: "The model is unavailable." })).toThrow(
      "The model is unavailable.",
    );
  });
});

describe("a chat against a real HTTP endpoint", () => {
  let server: http.Server;
  let api = "";
  /** What the next POST answers: a stream of chunks (slowly, if asked) or a refusal. */
  let next: { chunks: UIMessageChunk[]; delayMs?: number } | { status: number; body: string } = { chunks: [] };
  const bodies: unknown[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === "/api/runs/stop") {
        // No runs here: the client falls back to dropping its request.
        response.writeHead(404, { "content-type": "application/json" }).end("{}");
        return;
      }
      let raw = "";
      request.on("data", (piece: Buffer) => (raw += piece.toString()));
      request.on("end", async () => {
        bodies.push(JSON.parse(raw));
        const answer = next;
        if ("status" in answer) {
          response.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
          return;
        }
        const sse = createUIMessageStreamResponse({ stream: streamOf(answer.chunks) });
        response.writeHead(200, { "content-type": "text/event-stream" });
        const reader = sse.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done || response.destroyed) break;
          response.write(value);
          if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
        }
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function newChat(messages: ChatMessage[] = []) {
    const finished: FinishInfo[] = [];
    const statuses: string[] = [];
    let counter = 0;
    const chat = new StreamChat({
      id: "conv-1",
      messages,
      generateId: () => `id-${(counter += 1)}`,
      api,
      // This test server knows no runs: a Stop drops the request (as before a reply has started).
      stopApi: api.replace("/api/chat", "/api/runs/stop"),
      runsApi: api.replace("/api/chat", "/api/runs"),
      body: (id, current) => ({ id, last: current.at(-1)?.id, count: current.length }),
      onFinish: (info) => finished.push(info),
    });
    chat.subscribe(() => statuses.push(chat.status));
    return { chat, finished, statuses };
  }

  it("sends, shows the reply as it streams and ends ready", async () => {
    next = { chunks: SEQUENCES["a plain reply with the endpoint's data parts"] };
    const { chat, finished, statuses } = newChat();
    await chat.sendMessage({ text: "Hi" });
    expect(chat.status).toBe("ready");
    expect(chat.messages.map((m) => [m.role, m.parts.flatMap((p) => (p.type === "text" ? [p.text] : []))])).toEqual([
      ["user", ["Hi"]],
      ["assistant", ["Hello, world — ünïcode ✓"]],
    ]);
    expect(chat.messages[1].id).toBe("reply-1");
    // The user's message first, then "submitted" until the reply's first part, then "streaming".
    expect(statuses.indexOf("submitted")).toBeGreaterThanOrEqual(0);
    expect(statuses.indexOf("streaming")).toBeGreaterThan(statuses.indexOf("submitted"));
    expect(bodies.at(-1)).toEqual({ id: "conv-1", last: "id-1", count: 1 });
    expect(finished.map(({ isAbort, isError }) => ({ isAbort, isError }))).toEqual([
      { isAbort: false, isError: false },
    ]);
  });

  it("a long reply arriving word by word is re-rendered at most every 50 ms, and ends complete", async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i} `);
    next = { chunks: [{ type: "start", messageId: "long" }, ...text("t", ...words)], delayMs: 1 };
    const { chat } = newChat();
    let renders = 0;
    chat.subscribe(() => (renders += 1));
    const started = performance.now();
    await chat.sendMessage({ text: "Long" });
    const elapsed = performance.now() - started;
    expect(chat.messages.at(-1)?.parts).toEqual([{ type: "text", text: words.join(""), state: "done" }]);
    // One render per 50 ms of streaming (plus the frame, the status changes and the last flush), not one per word.
    expect(renders).toBeLessThan(elapsed / 50 + 8);
    expect(renders).toBeLessThan(words.length / 3);
  });

  it("a refusal is an error with the endpoint's status and body, and the message stays", async () => {
    next = { status: 429, body: JSON.stringify({ error: "Too many messages." }) };
    const { chat, finished } = newChat();
    await chat.sendMessage({ text: "Again" });
    expect(chat.status).toBe("error");
    expect(chat.getSnapshot().error).toMatchObject({
      statusCode: 429,
      responseBody: JSON.stringify({ error: "Too many messages." }),
    });
    expect(chat.messages.map((m) => m.role)).toEqual(["user"]);
    expect(finished[0]).toMatchObject({ isError: true, isAbort: false });
    chat.clearError();
    expect(chat.status).toBe("ready");
  });

  it("an error streamed after some text keeps the text and shows the error", async () => {
    next = {
      chunks: [
        { type: "start", messageId: "r" },
        ...text("t", "Partial"),
        { type: "error", errorText: "The model stopped answering." },
      ],
    };
    const { chat } = newChat();
    await chat.sendMessage({ text: "Go" });
    expect(chat.status).toBe("error");
    expect(chat.getSnapshot().error?.message).toBe("The model stopped answering.");
    expect(chat.messages.at(-1)?.parts).toEqual([{ type: "text", text: "Partial", state: "done" }]);
  });

  it("Stop ends the request, keeps what was shown and reports an abort", async () => {
    next = {
      chunks: [{ type: "start", messageId: "slow" }, ...text("t", ...Array.from({ length: 50 }, (_, i) => `w${i} `))],
      delayMs: 20,
    };
    const { chat, finished } = newChat();
    const sending = chat.sendMessage({ text: "Long" });
    await expect.poll(() => chat.messages.at(-1)?.parts.length ?? 0).toBeGreaterThan(0);
    await expect.poll(() => chat.status).toBe("streaming");
    await chat.stop();
    await sending;
    expect(chat.status).toBe("ready");
    expect(finished[0]).toMatchObject({ isAbort: true, isError: false });
    const shown = chat.messages.at(-1)!;
    expect(shown.id).toBe("slow");
    expect(shown.parts[0]).toMatchObject({ type: "text" });
  });

  it("editing a message drops what followed it; regenerating drops the reply", async () => {
    const history: ChatMessage[] = [
      { id: "u1", role: "user", parts: [{ type: "text", text: "First" }] },
      { id: "a1", role: "assistant", parts: [{ type: "text", text: "Reply 1" }] },
      { id: "u2", role: "user", parts: [{ type: "text", text: "Second" }] },
      { id: "a2", role: "assistant", parts: [{ type: "text", text: "Reply 2" }] },
    ];
    next = { chunks: [{ type: "start", messageId: "a1b" }, ...text("t", "New reply 1")] };
    const { chat } = newChat(history);
    await chat.sendMessage({ text: "First, edited", messageId: "u1" });
    expect(chat.messages.map((m) => m.id)).toEqual(["u1", "a1b"]);
    expect(chat.messages[0].parts).toEqual([{ type: "text", text: "First, edited" }]);
    expect(bodies.at(-1)).toMatchObject({ last: "u1", count: 1 });

    next = { chunks: [{ type: "start", messageId: "a1c" }, ...text("t", "Another")] };
    await chat.regenerate();
    expect(chat.messages.map((m) => m.id)).toEqual(["u1", "a1c"]);
    expect(bodies.at(-1)).toMatchObject({ last: "u1", count: 1 });
  });
});
