import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { buildTools } from "../../../app/llm/tools.server";
import { createDemoModel, DEMO_MODEL_ID, DEMO_MODEL_LABEL, DEMO_REPLY } from "../../../app/llm/demo-model.server";

describe("demo model", () => {
  it("is named honestly", () => {
    expect(DEMO_MODEL_ID).toBe("nuvara-demo");
    expect(DEMO_MODEL_LABEL).toBe("Demo (not an AI)");
    const model = createDemoModel();
    expect(model.modelId).toBe("nuvara-demo");
    expect(model.specificationVersion).toBe("v4");
  });

  it("says it is not an AI and explains how to connect a real model", () => {
    expect(DEMO_REPLY).toContain("Nuvara² demo model, not an AI");
    for (const fact of [
      "LLM_BASE_URL",
      "LLM_API_KEY",
      "LLM_MODELS",
      "http://127.0.0.1:11434/v1",
      "https://api.openai.com/v1",
    ]) {
      expect(DEMO_REPLY).toContain(fact);
    }
    expect(DEMO_REPLY).toMatch(/first one is the default/);
    expect(DEMO_REPLY).toMatch(/run Ollama locally on 127\.0\.0\.1:11434 and restart/);
  });

  it("streams the reply word by word through streamText, spread over time", async () => {
    const result = streamText({ model: createDemoModel({ wordDelayMs: 2 }), prompt: "What is 2 + 2?" });
    const pieces: string[] = [];
    const arrivals: number[] = [];
    for await (const piece of result.textStream) {
      pieces.push(piece);
      arrivals.push(performance.now());
    }
    expect(pieces.join("")).toBe(DEMO_REPLY);
    expect(pieces.length).toBe(DEMO_REPLY.split(/\s+/).length);
    expect(pieces[0]).toBe("Hi! ");
    // ~100 words at 2 ms each: the pieces cannot all have arrived at once.
    expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThan(50);
    expect(await result.finishReason).toBe("stop");
  });

  it("ignores the tools it is offered", async () => {
    const result = streamText({
      model: createDemoModel({ wordDelayMs: 0 }),
      prompt: "Compute 1/3",
      tools: buildTools(),
    });
    expect(await result.text).toBe(DEMO_REPLY);
    expect(await result.toolCalls).toEqual([]);
  });

  it("stops streaming when the request is aborted", async () => {
    const controller = new AbortController();
    const result = streamText({
      model: createDemoModel({ wordDelayMs: 5 }),
      prompt: "hi",
      abortSignal: controller.signal,
    });
    const pieces: string[] = [];
    for await (const piece of result.textStream) {
      pieces.push(piece);
      if (pieces.length === 3) controller.abort();
    }
    expect(pieces).toHaveLength(3);
  });

  it("answers non-streaming calls with the whole reply", async () => {
    const { text, finishReason } = await generateText({ model: createDemoModel(), prompt: "hello" });
    expect(text).toBe(DEMO_REPLY);
    expect(finishReason).toBe("stop");
  });
});
