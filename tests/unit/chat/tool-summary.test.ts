import { describe, expect, it } from "vitest";
import { shortNumber, toolSummary, type ToolCall } from "~/components/chat/tool-summary";

const call = (overrides: Partial<ToolCall>): ToolCall => ({
  id: "calculator",
  name: "Calculator",
  state: "output-available",
  input: {},
  output: undefined,
  ...overrides,
});

describe("a tool step's one-line summary", () => {
  it("says what the calculator worked out, with the operators people write", () => {
    const line = toolSummary(
      call({
        input: { expression: "19.99 * 3 * 1.08" },
        output: { expression: "19.99 * 3 * 1.08", result: "64.7676" },
      }),
    );
    expect(line).toBe("Calculated 19.99 × 3 × 1.08 ≈ 64.77");
    expect(toolSummary(call({ input: { expression: "10/4" }, output: { result: "2.5" } }))).toBe(
      "Calculated 10 ÷ 4 = 2.5",
    );
    expect(toolSummary(call({ state: "input-available", input: { expression: "2^10" } }))).toBe("Calculating 2^10…");
    expect(
      toolSummary(call({ input: { expression: "1/0" }, output: { expression: "1/0", error: "Division by zero." } })),
    ).toBe("Couldn't calculate 1 ÷ 0");
  });

  it("says what the unit converter converted, rounded for reading", () => {
    const output = {
      category: "length",
      value: "5",
      fromUnit: "km",
      result: "3.106855961",
      toUnit: "mi",
      approximate: true,
    };
    expect(toolSummary(call({ id: "convert_units", input: { value: 5, from: "km", to: "mi" }, output }))).toBe(
      "Converted 5 km → about 3.11 mi",
    );
    expect(
      toolSummary(
        call({
          id: "convert_units",
          input: { value: 1, from: "mi", to: "km" },
          output: { value: "1", fromUnit: "mi", result: "1.609344", toUnit: "km" },
        }),
      ),
    ).toBe("Converted 1 mi → about 1.61 km");
    expect(
      toolSummary(
        call({
          id: "convert_units",
          input: { value: 3, from: "kg", to: "m" },
          output: { error: "Cannot convert mass (kg) to length (m)." },
        }),
      ),
    ).toBe("Couldn't convert 3 kg to m");
    expect(toolSummary(call({ id: "convert_units", state: "input-streaming", input: {} }))).toBe("Converting units…");
  });

  it("says where the clock looked up the time", () => {
    const clock = (input: unknown, output: unknown) => toolSummary(call({ id: "current_datetime", input, output }));
    expect(clock({ timeZone: "Asia/Tokyo" }, { timeZone: "Asia/Tokyo", human: "…" })).toBe(
      "Looked up the time in Tokyo",
    );
    expect(clock({ timeZone: "America/Argentina/Buenos_Aires" }, { timeZone: "America/Argentina/Buenos_Aires" })).toBe(
      "Looked up the time in Buenos Aires",
    );
    expect(clock({}, { timeZone: "Europe/Paris" })).toBe("Looked up the time in your time zone");
    // An unknown zone: the tool answers in UTC, and the line says so.
    expect(clock({ timeZone: "Mars/Olympus" }, { timeZone: "UTC", note: "not valid" })).toBe(
      "Looked up the time in UTC",
    );
  });

  it("says what the web search looked for and found, and which page was read", () => {
    const search = (overrides: Partial<ToolCall>) =>
      toolSummary(call({ id: "web_search", name: "Web search", input: { query: "tides brest" }, ...overrides }));
    expect(search({ state: "input-available" })).toBe("Searching the web for “tides brest”…");
    expect(search({ output: { note: "…", results: [{}, {}] } })).toBe("Searched the web for “tides brest”: 2 results");
    expect(search({ output: { note: "…", results: [] } })).toBe("Searched the web for “tides brest”: nothing found");
    expect(search({ output: { error: "refused: 10.0.0.5 is a private address" } })).toBe(
      "Couldn't search the web for “tides brest”",
    );
    const read = (overrides: Partial<ToolCall>) =>
      toolSummary(call({ id: "read_page", name: "Read a found page", input: { number: 2 }, ...overrides }));
    expect(read({ state: "input-available" })).toBe("Reading page [2]…");
    expect(read({ output: { title: "Tide tables", text: "…" } })).toBe("Read “Tide tables” [2]");
    expect(read({ output: { error: "The page could not be read: refused." } })).toBe("Couldn't read page [2]");
  });

  it("names any other tool, running, done or failed", () => {
    const other = { id: "summarise_notes", name: "Summarise notes" };
    expect(toolSummary(call({ ...other, state: "input-available" }))).toBe("Using Summarise notes…");
    expect(toolSummary(call({ ...other, output: { anything: 1 } }))).toBe("Used Summarise notes");
    expect(toolSummary(call({ ...other, state: "output-error" }))).toBe("Summarise notes failed");
  });

  it("rounds only what needs it", () => {
    expect(shortNumber("64.77")).toEqual({ text: "64.77", approximate: false });
    expect(shortNumber("0.125")).toEqual({ text: "0.125", approximate: false });
    expect(shortNumber("0.33333333")).toEqual({ text: "0.333", approximate: true });
    expect(shortNumber("123456789012345678901234")).toEqual({ text: "123456789012345678901234", approximate: false });
    expect(shortNumber("1e+50")).toEqual({ text: "1e+50", approximate: false });
  });
});
