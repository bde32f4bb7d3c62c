/**
 * The real HTTP path: streamText → @ai-sdk/openai-compatible → the scripted
 * model server on 127.0.0.1.
 */
import {
  APICallError,
  generateText,
  isStepCount,
  streamText,
  type LanguageModel,
  type TextStreamPart,
  type ToolSet,
} from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createChatModel, listOllamaModels } from "../../../app/llm/provider.server";
import { buildTools } from "../../../app/llm/tools.server";
import { startModelServer, type ModelServer } from "../../support/model-server";

let server: ModelServer;
let model: LanguageModel;

beforeAll(async () => {
  server = await startModelServer({ models: ["llama3.2", "qwen2.5"] });
  model = createChatModel({ baseURL: server.url, apiKey: "sk-test", modelId: "llama3.2" });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.reset();
});

/** Omit that keeps streamText's prompt-or-messages union intact. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type CallOptions = DistributiveOmit<Parameters<typeof streamText>[0], "model" | "onError">;

/**
 * Reads the whole stream, keeping every part, every error reported through
 * onError, and the error the stream itself failed with, if any.
 */
async function consume(options: CallOptions) {
  const errors: unknown[] = [];
  const result = streamText({ model, maxRetries: 0, ...options, onError: ({ error }) => void errors.push(error) });
  const parts: Array<TextStreamPart<ToolSet>> = [];
  let thrown: unknown;
  try {
    for await (const part of result.fullStream) parts.push(part);
  } catch (error) {
    thrown = error;
  }
  const deltas = parts.flatMap((part) => (part.type === "text-delta" ? [part.text] : []));
  return { result, parts, deltas, errors, thrown };
}

function chatBody(index: number) {
  const body = server.requests.filter((request) => request.path === "/v1/chat/completions")[index]?.body;
  if (!body) throw new Error(`no chat request #${index}`);
  return body;
}

describe("createChatModel against an OpenAI-compatible server", () => {
  it("streams a reply in several chunks and reports usage", async () => {
    server.enqueue({ type: "text", text: ["Hel", "lo, ", "wor", "ld!"] });
    const { result, deltas, errors } = await consume({ prompt: "Say hello" });

    expect(errors).toEqual([]);
    expect(deltas).toEqual(["Hel", "lo, ", "wor", "ld!"]);
    expect(await result.text).toBe("Hello, world!");
    expect(await result.totalUsage).toMatchObject({ inputTokens: 2, outputTokens: 2, totalTokens: 4 });

    const body = chatBody(0);
    expect(body.model).toBe("llama3.2");
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.messages).toEqual([{ role: "user", content: "Say hello" }]);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("echoes the last user message word by word when nothing is scripted", async () => {
    const { deltas } = await consume({
      messages: [
        { role: "user", content: "first question" },
        { role: "assistant", content: "first answer" },
        { role: "user", content: "second question here" },
      ],
    });
    expect(deltas).toEqual(["You ", "said: ", "second ", "question ", "here"]);
  });

  it("delivers slow chunks as they come, not all at the end", async () => {
    server.enqueue({ type: "text", text: "one two three four", chunkDelayMs: 40 });
    const result = streamText({ model, prompt: "count", maxRetries: 0 });
    const arrivals: number[] = [];
    for await (const piece of result.textStream) {
      expect(piece.length).toBeGreaterThan(0);
      arrivals.push(performance.now());
    }
    expect(arrivals).toHaveLength(4);
    expect((arrivals[3] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThan(80);
  });

  it("runs a scripted tool call through the calculator and returns the model's final text", async () => {
    server.enqueue(
      { type: "tool-calls", calls: [{ id: "call_sum", name: "calculator", arguments: { expression: "0.1 + 0.2" } }] },
      { type: "text", text: "0.1 + 0.2 is exactly 0.3." },
    );
    const { result, parts, errors } = await consume({
      prompt: "What is 0.1 + 0.2?",
      tools: buildTools(),
      stopWhen: isStepCount(5),
    });

    expect(errors).toEqual([]);
    const toolResult = parts.find((part) => part.type === "tool-result");
    expect(toolResult).toMatchObject({ toolName: "calculator", toolCallId: "call_sum", output: { result: "0.3" } });
    expect(await result.text).toBe("0.1 + 0.2 is exactly 0.3.");
    expect(await result.steps).toHaveLength(2);
    expect(server.queuedReplies).toBe(0);

    // The first request offered the tools; the second carried the tool result back.
    expect(chatBody(0).tools?.map((tool) => tool.function.name)).toEqual([
      "calculator",
      "current_datetime",
      "convert_units",
    ]);
    const toolMessage = chatBody(1).messages?.find((message) => message.role === "tool");
    expect(toolMessage?.tool_call_id).toBe("call_sum");
    expect(JSON.parse(String(toolMessage?.content))).toEqual({ expression: "0.1 + 0.2", result: "0.3" });
  });

  it("stops after the tool call when only one step is allowed", async () => {
    server.enqueue({
      type: "tool-calls",
      calls: [{ name: "convert_units", arguments: { value: 1, from: "mi", to: "km" } }],
    });
    const { result } = await consume({ prompt: "1 mile in km?", tools: buildTools(), stopWhen: isStepCount(1) });
    expect(await result.finishReason).toBe("tool-calls");
    expect(await result.toolResults).toMatchObject([{ output: { result: "1.609344" } }]);
    expect(server.requests).toHaveLength(1);
  });

  it("handles tool calls without streaming too", async () => {
    server.enqueue(
      { type: "tool-calls", calls: [{ name: "calculator", arguments: { expression: "2^10" } }] },
      { type: "text", text: "It is 1024." },
    );
    const { text, steps } = await generateText({
      model,
      prompt: "2^10?",
      tools: buildTools({ enabledIds: ["calculator"] }),
      stopWhen: isStepCount(3),
      maxRetries: 0,
    });
    expect(text).toBe("It is 1024.");
    expect(steps[0]?.toolResults[0]?.output).toEqual({ expression: "2^10", result: "1024" });
    expect(chatBody(0).stream).toBeFalsy();
  });

  it("aborts the upstream request when the caller aborts", async () => {
    server.enqueue({ type: "text", text: "one two three four five six seven eight nine ten", chunkDelayMs: 30 });
    const controller = new AbortController();
    const result = streamText({ model, prompt: "count slowly", maxRetries: 0, abortSignal: controller.signal });
    const received: string[] = [];
    const partTypes: string[] = [];
    for await (const part of result.fullStream) {
      partTypes.push(part.type);
      if (part.type === "text-delta") {
        received.push(part.text);
        if (received.length === 2) controller.abort();
      }
    }

    expect(received).toEqual(["one ", "two "]);
    expect(partTypes.at(-1)).toBe("abort");
    expect(await server.requests[0]?.outcome).toBe("aborted");
    expect(server.abortedCount).toBe(1);
  });

  it("surfaces a 500 as an API call error", async () => {
    server.enqueue({ type: "http-error", status: 500, message: "model crashed" });
    const { parts, errors } = await consume({ prompt: "hi" });

    expect(errors).toHaveLength(1);
    const [error] = errors;
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 500, message: "model crashed", isRetryable: true });
    expect(parts.some((part) => part.type === "text-delta")).toBe(false);
  });

  it("passes a 401 on without retrying it", async () => {
    server.enqueue({ type: "http-error", status: 401 });
    const { errors } = await consume({ prompt: "hi", maxRetries: 2 });
    expect(errors[0]).toMatchObject({ statusCode: 401, message: "Invalid API key", isRetryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it("retries a 429 after the server's Retry-After and then succeeds", async () => {
    server.enqueue({ type: "http-error", status: 429, retryAfterSeconds: 0 }, { type: "text", text: "finally" });
    const { result, errors } = await consume({ prompt: "hi", maxRetries: 1 });
    expect(errors).toEqual([]);
    expect(await result.text).toBe("finally");
    expect(server.requests).toHaveLength(2);
  });

  it("exposes Retry-After on a 429 it does not retry", async () => {
    server.enqueue({ type: "http-error", status: 429, retryAfterSeconds: 7 });
    const { errors } = await consume({ prompt: "hi" });
    expect(errors[0]).toMatchObject({
      statusCode: 429,
      responseHeaders: expect.objectContaining({ "retry-after": "7" }),
    });
  });

  it("reports an unparseable stream as an error", async () => {
    server.enqueue({ type: "malformed" });
    const { result, errors } = await consume({ prompt: "hi" });
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/JSON parsing failed/);
    expect(await result.text).toBe("");
  });

  it("reports a connection dropped mid-stream as an error after the partial text", async () => {
    server.enqueue({ type: "drop", text: ["partial ", "answer"] });
    const { deltas, errors, thrown } = await consume({ prompt: "hi" });
    expect(deltas).toEqual(["partial ", "answer"]);
    // ai v7 fails the stream itself here (no error part, no onError): callers must catch around iteration.
    const failure = thrown ?? errors[0];
    expect(APICallError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ message: "Failed to process successful response", statusCode: 200 });
    expect(await server.requests[0]?.outcome).toBe("dropped");
  });

  it("gives up on a stalled server at the caller's deadline and closes the request", async () => {
    server.enqueue({ type: "stall" });
    const started = performance.now();
    const { result, parts } = await consume({ prompt: "hi", abortSignal: AbortSignal.timeout(200) });

    expect(parts.map((part) => part.type)).toContain("abort");
    await expect(result.text).rejects.toMatchObject({ name: "TimeoutError" });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await server.requests[0]?.outcome).toBe("aborted");
  });

  it("keeps failing while a failure mode is set, and recovers when it is cleared", async () => {
    server.setFailureMode({ type: "http-error", status: 503 });
    const first = await consume({ prompt: "hi" });
    const second = await consume({ prompt: "hi" });
    expect([first.errors[0], second.errors[0]]).toMatchObject([{ statusCode: 503 }, { statusCode: 503 }]);

    server.setFailureMode(null);
    const third = await consume({ prompt: "hi" });
    expect(await third.result.text).toBe("You said: hi");
  });
});

describe("listOllamaModels", () => {
  it("lists the model ids the server offers", async () => {
    expect(await listOllamaModels(server.url, 1000)).toEqual(["llama3.2", "qwen2.5"]);
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/v1/models" });
  });

  it("tolerates a trailing slash and sends the API key when given", async () => {
    expect(await listOllamaModels(`${server.url}/`, 1000, "sk-list")).toEqual(["llama3.2", "qwen2.5"]);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-list");
  });

  it("returns null when the server errors or answers garbage", async () => {
    server.setFailureMode({ type: "http-error", status: 500 });
    expect(await listOllamaModels(server.url, 1000)).toBeNull();
    server.setFailureMode({ type: "malformed" });
    expect(await listOllamaModels(server.url, 1000)).toBeNull();
  });

  it("returns null at the deadline when the server stalls", async () => {
    server.setFailureMode({ type: "stall" });
    const started = performance.now();
    expect(await listOllamaModels(server.url, 150)).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await server.requests[0]?.outcome).toBe("aborted");
  });

  it("returns null when nothing listens at the address", async () => {
    const gone = await startModelServer();
    const url = gone.url;
    await gone.close();
    expect(await listOllamaModels(url, 1000)).toBeNull();
  });
});
