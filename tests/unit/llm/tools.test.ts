import type { ToolSet } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { answerOrPlainError, builtInToolIds, builtInTools, buildTools } from "../../../app/llm/tools.server";
import { captureLogs } from "../../support/log-capture";

const FIXED_NOW = new Date("2024-03-10T14:30:05.000Z");

/** Runs a tool the way the AI SDK does after the model called it. */
async function run(tools: ToolSet, id: string, input: unknown): Promise<unknown> {
  const entry = tools[id];
  if (!entry?.execute) throw new Error(`tool ${id} is missing or not executable`);
  return await entry.execute(input, { toolCallId: "call-test", messages: [], context: {} });
}

describe("tool catalogue", () => {
  it("lists each built-in tool once with a label and a one-sentence description", () => {
    expect(builtInToolIds()).toEqual(["calculator", "current_datetime", "convert_units"]);
    for (const entry of builtInTools()) {
      expect(entry.name.length).toBeGreaterThan(0);
      expect(entry.description).toMatch(/^[A-Z][^.]*\.$/);
    }
  });

  describe("with a search provider (SEARCH_PROVIDER)", () => {
    afterEach(() => {
      delete process.env.SEARCH_PROVIDER;
      delete process.env.SEARCH_URL;
      resetConfig();
    });

    it("adds web search and page reading to the catalogue, each described in one sentence", () => {
      Object.assign(process.env, { SEARCH_PROVIDER: "searxng", SEARCH_URL: "http://127.0.0.1:8888" });
      resetConfig();
      expect(builtInToolIds()).toEqual(["calculator", "current_datetime", "convert_units", "web_search", "read_page"]);
      for (const entry of builtInTools()) expect(entry.description).toMatch(/^[A-Z][^.]*\.$/);
      expect(Object.keys(buildTools({ enabledIds: ["web_search"] }))).toEqual(["web_search"]);
    });
  });

  it("offers every tool when no ids are given", () => {
    expect(Object.keys(buildTools())).toEqual(["calculator", "current_datetime", "convert_units"]);
  });

  it("offers only the enabled tools and ignores unknown ids", () => {
    expect(Object.keys(buildTools({ enabledIds: ["convert_units", "web_search"] }))).toEqual(["convert_units"]);
    expect(Object.keys(buildTools({ enabledIds: [] }))).toEqual([]);
  });

  it("gives the model a description of each tool", () => {
    const tools = buildTools();
    expect(tools.calculator?.description).toMatch(/exactly/);
    expect(tools.convert_units?.description).toContain("GiB");
  });
});

describe("built-in tools", () => {
  it("calculator answers exactly and reports errors as values", async () => {
    const tools = buildTools({ enabledIds: ["calculator"] });
    expect(await run(tools, "calculator", { expression: "0.1 + 0.2" })).toEqual({
      expression: "0.1 + 0.2",
      result: "0.3",
    });
    expect(await run(tools, "calculator", { expression: "1/0" })).toEqual({
      expression: "1/0",
      error: "Division by zero.",
    });
  });

  it("current_datetime uses the user's zone and the injected clock", async () => {
    const tools = buildTools({ timeZone: "Asia/Tokyo", now: () => FIXED_NOW });
    expect(await run(tools, "current_datetime", {})).toMatchObject({
      iso: "2024-03-10T23:30:05+09:00",
      timeZone: "Asia/Tokyo",
      weekday: "Sunday",
    });
  });

  it("current_datetime can be asked about another zone", async () => {
    const tools = buildTools({ timeZone: "Asia/Tokyo", now: () => FIXED_NOW });
    expect(await run(tools, "current_datetime", { timeZone: "America/Los_Angeles" })).toMatchObject({
      iso: "2024-03-10T07:30:05-07:00",
      timeZone: "America/Los_Angeles",
    });
  });

  it("current_datetime falls back to UTC for an invalid user zone and says so", async () => {
    const tools = buildTools({ timeZone: "Nowhere/Land", now: () => FIXED_NOW });
    const answer = await run(tools, "current_datetime", {});
    expect(answer).toMatchObject({ timeZone: "UTC", iso: "2024-03-10T14:30:05+00:00" });
    expect(answer).toHaveProperty("note", expect.stringContaining("Nowhere/Land"));
  });

  it("convert_units converts and reports unknown units as values", async () => {
    const tools = buildTools();
    expect(await run(tools, "convert_units", { value: 10, from: "km", to: "mi" })).toMatchObject({
      result: "6.21371192237334",
      approximate: true,
    });
    expect(await run(tools, "convert_units", { value: 1, from: "parsec", to: "km" })).toEqual({
      error: expect.stringContaining('Unknown unit "parsec"'),
    });
  });
});

describe("a tool that fails unexpectedly", () => {
  it("answers a plain { error } instead of the library's exception text, and logs only its kind", () => {
    const logs = captureLogs();
    try {
      const run = answerOrPlainError("calculator", (input: { expression: string }) => {
        throw new RangeError(`Invalid array length for ${input.expression}`);
      });
      expect(run({ expression: "secret 42" })).toEqual({
        error: "The calculator failed unexpectedly and has no answer for this input.",
      });
      const logged = logs.lines.join("\n");
      expect(logs.entries().map((entry) => entry.level)).toEqual([50]); // one error line
      expect(logged).toContain("RangeError");
      expect(logged).not.toContain("secret 42");
    } finally {
      logs.restore();
    }
  });
});
