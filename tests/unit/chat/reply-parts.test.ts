import { describe, expect, it } from "vitest";
import type { ChatMessage } from "~/conversation/message-types";
import { settleParts } from "~/chat/reply-parts";

describe("settleParts: what a stopped reply stores", () => {
  it("drops tool calls without a result and empty texts, and closes streaming texts", () => {
    const parts = [
      { type: "step-start" },
      {
        type: "tool-calculator",
        toolCallId: "c1",
        state: "output-available",
        input: { expression: "1+1" },
        output: { result: "2" },
      },
      { type: "tool-convert_units", toolCallId: "c2", state: "input-available", input: { value: 1 } },
      { type: "tool-current_datetime", toolCallId: "c3", state: "input-streaming", input: undefined },
      { type: "text", text: "", state: "streaming" },
      { type: "text", text: "Partial answ", state: "streaming" },
    ] as ChatMessage["parts"];
    expect(settleParts(parts)).toEqual([
      { type: "step-start" },
      parts[1],
      { type: "text", text: "Partial answ", state: "done" },
    ]);
  });

  it("keeps failed tool calls (they have a result: the error)", () => {
    const failed = {
      type: "tool-calculator",
      toolCallId: "c1",
      state: "output-error",
      input: {},
      errorText: "bad input",
    } as ChatMessage["parts"][number];
    expect(settleParts([failed])).toEqual([failed]);
  });

  it("keeps no progress report: how far a tool had got says nothing once the reply is over", () => {
    const progress = {
      type: "data-tool-progress",
      id: "c1",
      data: { toolCallId: "c1", progress: 2, total: 3 },
    } as ChatMessage["parts"][number];
    const sources = { type: "data-sources", id: "sources", data: [] } as unknown as ChatMessage["parts"][number];
    expect(settleParts([progress, sources])).toEqual([sources]);
  });
});
