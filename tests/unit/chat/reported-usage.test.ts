import { describe, expect, it } from "vitest";
import { believableUsage, reportedUsageCeiling } from "~/chat/reported-usage";

/** Which counts a provider reports are charged as they are (app/chat/reported-usage.ts). */
describe("believableUsage", () => {
  const ceiling = reportedUsageCeiling(1_000, 4_096);

  it("takes whole, non-negative counts up to ten times the prompt's estimate and the longest reply", () => {
    expect(ceiling).toBe(50_960);
    expect(believableUsage({ inputTokens: 812, outputTokens: 97 }, ceiling)).toEqual({
      inputTokens: 812,
      outputTokens: 97,
    });
    expect(believableUsage({ inputTokens: ceiling, outputTokens: 0 }, ceiling)).toEqual({
      inputTokens: ceiling,
      outputTokens: 0,
    });
    // A provider that reports nothing: nothing to charge from it (the estimate is used instead).
    expect(believableUsage({}, ceiling)).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("refuses negative, fractional, non-finite and absurd counts", () => {
    for (const bad of [-1, -1_000_000, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e308, ceiling + 1]) {
      expect(believableUsage({ inputTokens: bad, outputTokens: 10 }, ceiling), String(bad)).toBeUndefined();
      expect(believableUsage({ inputTokens: 10, outputTokens: bad }, ceiling), String(bad)).toBeUndefined();
    }
  });
});
