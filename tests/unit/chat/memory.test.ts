import { describe, expect, it } from "vitest";
import { toolSummary, type ToolCall } from "~/components/chat/tool-summary";
import { memoryTextProblem, MAX_MEMORY_LENGTH } from "~/data/memory-rules";
import { systemPrompt } from "~/chat/system-prompt";
import { withinBudget } from "~/chat/memory.server";

/** Memory's pure rules (docs/decisions/103): the text's bounds, the prompt's budget and section, the reply's lines. */
describe("memory", () => {
  it("refuses an empty, an unstorable or a too long text, with the reason", () => {
    expect(memoryTextProblem("  Likes tea. ")).toBeNull();
    expect(memoryTextProblem("   ")).toMatch(/empty/);
    expect(memoryTextProblem("a\u0000b")).toMatch(/cannot be stored/);
    expect(memoryTextProblem("x".repeat(MAX_MEMORY_LENGTH))).toBeNull();
    expect(memoryTextProblem("x".repeat(MAX_MEMORY_LENGTH + 1))).toBe(
      "Please keep a memory to 500 characters or fewer (this one has 501).",
    );
  });

  it("takes memories in order while they fit the budget, on one line each; a long one is skipped, not the rest", () => {
    const memories = [
      { id: "a", text: "First\nfact." },
      { id: "b", text: "x".repeat(30) },
      { id: "c", text: "Third." },
    ];
    expect(withinBudget(memories, 20)).toEqual([
      { id: "a", text: "First fact." },
      { id: "c", text: "Third." },
    ]);
    expect(withinBudget(memories, 5)).toEqual([]);
  });

  it("puts the memories last in the system prompt, and no section without any", () => {
    const prompt = systemPrompt({ customInstructions: "Be brief.", memories: ["Likes tea.", "Has a cat."] });
    expect(prompt.endsWith("comes first):\n- Likes tea.\n- Has a cat.")).toBe(true);
    expect(prompt.indexOf("Be brief.")).toBeLessThan(prompt.indexOf("Likes tea."));
    expect(systemPrompt({ memories: [] })).not.toContain("remember");
  });

  it("says what the memory tools did", () => {
    const call = (overrides: Partial<ToolCall>): ToolCall => ({
      id: "remember",
      name: "remember",
      state: "output-available",
      input: { fact: "Likes tea." },
      output: undefined,
      ...overrides,
    });
    expect(toolSummary(call({ output: { saved: "Likes tea." } }))).toBe("Saved to memory: “Likes tea.”");
    expect(toolSummary(call({ state: "input-available" }))).toBe("Saving to memory…");
    expect(toolSummary(call({ output: { error: "Memory is full." } }))).toBe(
      "Couldn't save to memory: Memory is full.",
    );
    expect(toolSummary(call({ id: "forget", output: { forgotten: ["Likes tea."] } }))).toBe(
      "Deleted from memory: “Likes tea.”",
    );
    expect(toolSummary(call({ id: "forget", output: { error: "No single saved memory matches." } }))).toBe(
      "Couldn't delete from memory",
    );
  });
});
