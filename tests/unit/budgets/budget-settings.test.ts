import { describe, expect, it } from "vitest";
import {
  costMicroUsd,
  dollarsToMicro,
  parseFallbackModels,
  parseModelPrices,
  parseMoneyBudgets,
  parseTokenBudgets,
} from "~/settings/budget-settings";
import { estimatePromptTokens, estimateTextTokens } from "~/budgets/prompt-estimate";
import {
  budgetLeftText,
  budgetSpentMessage,
  budgetTooSmallMessage,
  fallbackText,
  formatMicroUsd,
  toBudgetView,
} from "~/budgets/budget-text";
import { budgetStatus } from "~/data/budgets.server";
import { parseConfig } from "~/config.server";
import { NO_BUDGETS } from "~/settings/budget-settings";
import type { ChatMessage } from "~/conversation/message-types";

describe("budget settings", () => {
  it("reads token budgets per role, with unlimited and digit separators", () => {
    const budgets = parseTokenBudgets("none=20_000; pro=500000 ;admin=unlimited");
    expect([...budgets]).toEqual([
      ["none", 20_000],
      ["pro", 500_000],
      ["admin", null],
    ]);
    expect(() => parseTokenBudgets("none=20k")).toThrow(/whole number or "unlimited", not "20k"/);
  });

  it("reads money budgets in dollars into exact micro-dollars", () => {
    expect([...parseMoneyBudgets("none=0.50;pro=$20;team=0.000001")]).toEqual([
      ["none", 500_000],
      ["pro", 20_000_000],
      ["team", 1],
    ]);
    expect(dollarsToMicro("0.1")).toBe(100_000);
    expect(() => parseMoneyBudgets("none=-1")).toThrow(/amount in US dollars/);
    expect(() => parseMoneyBudgets("none=1.0000001")).toThrow(/amount in US dollars/);
  });

  it("reads model prices (ids with colons) and fallback models", () => {
    const prices = parseModelPrices("gpt-4o-mini=0.15/0.60; llama3.2:1b = 0/0");
    expect(prices.get("gpt-4o-mini")).toEqual({ inputPerMillion: 0.15, outputPerMillion: 0.6 });
    expect(prices.get("llama3.2:1b")).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
    expect(() => parseModelPrices("gpt-4o=2.5")).toThrow(/model=input\/output/);
    expect(() => parseModelPrices("a=1/1;a=2/2")).toThrow(/priced twice/);
    expect([...parseFallbackModels("none=llama3.2:1b")]).toEqual([["none", "llama3.2:1b"]]);
  });

  it("refuses to start with a bad budget, naming the variable", () => {
    expect(() => parseConfig({ NODE_ENV: "test", BUDGET_DAILY_USD: "none=lots" })).toThrow(
      /^BUDGET_DAILY_USD: budget for "none"/,
    );
    expect(() => parseConfig({ NODE_ENV: "test", LLM_MODEL_PRICES: "x" })).toThrow(/^LLM_MODEL_PRICES:/);
    expect(() => parseConfig({ NODE_ENV: "test", PLANS: "[{}]" })).toThrow(/^PLANS: 0\.name/);
  });

  it("prices tokens in micro-dollars, rounding up", () => {
    expect(costMicroUsd({ inputPerMillion: 2.5, outputPerMillion: 10 }, 1000, 500)).toBe(7_500);
    expect(costMicroUsd({ inputPerMillion: 0.15, outputPerMillion: 0.6 }, 1, 1)).toBe(1);
  });
});

describe("budget status", () => {
  const now = new Date("2026-11-26T12:00:00Z");
  it("lists the role's budgets, tightest first, and says when one is nearly spent or spent", () => {
    const status = budgetStatus(
      { ...NO_BUDGETS, dailyTokens: 5_000, monthlyTokens: 100_000 },
      { dailyTokens: 3_000, monthlyTokens: 99_000, dailyMicroUsd: 0, monthlyMicroUsd: 0 },
      now,
    );
    expect(status.lines.map((line) => [line.kind, line.left, line.resetsAt])).toEqual([
      ["monthlyTokens", 1_000, "2026-12-01T00:00:00.000Z"],
      ["dailyTokens", 2_000, "2026-11-27T00:00:00.000Z"],
    ]);
    expect(status).toMatchObject({ nearlySpent: true, spent: false });
    const spent = budgetStatus(
      { ...NO_BUDGETS, dailyMicroUsd: 10_000 },
      { dailyTokens: 0, monthlyTokens: 0, dailyMicroUsd: 10_000, monthlyMicroUsd: 10_000 },
      now,
    );
    expect(spent.spent).toBe(true);
  });
});

describe("prompt estimates", () => {
  it("errs on the high side: four ASCII characters a token, every other character one", () => {
    expect(estimateTextTokens("abcdefgh")).toBe(2);
    expect(estimateTextTokens("日本語")).toBe(3);
    const history: ChatMessage[] = [
      {
        id: "1",
        role: "user",
        parts: [
          { type: "text", text: "a".repeat(400) },
          { type: "data-attachment", data: { id: "f", name: "a.png", kind: "image", mediaType: "image/png", size: 1 } },
        ],
      },
    ];
    expect(estimatePromptTokens("", history, { vision: false })).toBe(4 + 4 + 100);
    expect(estimatePromptTokens("", history, { vision: true })).toBe(4 + 4 + 100 + 1_600);
  });
});

describe("what a budget says", () => {
  const line = { kind: "dailyTokens" as const, limit: 20_000, left: 1_234, resetsAt: "2026-11-27T00:00:00.000Z" };
  it("reads as people say it", () => {
    expect(budgetLeftText(line)).toBe("1,234 tokens left today");
    expect(budgetLeftText({ ...line, kind: "monthlyMicroUsd", left: 420_000 })).toBe("$0.42 left this month");
    expect(formatMicroUsd(3_100)).toBe("$0.0031");
    expect(budgetSpentMessage({ ...line, left: 0 })).toBe(
      "You've used today's budget of 20,000 tokens. It resets at 00:00 UTC.",
    );
    expect(
      budgetSpentMessage({ ...line, kind: "monthlyMicroUsd", limit: 5_000_000, resetsAt: "2026-12-01T00:00:00.000Z" }),
    ).toBe("You've used this month's budget of $5.00. It resets on 1 Dec.");
    expect(budgetTooSmallMessage(line)).toMatch(/^What's left of today's budget \(1,234 tokens\) isn't enough/);
    const view = toBudgetView({ lines: [{ ...line, left: 0 }], spent: true, nearlySpent: true }, "Llama 3.2")!;
    expect(fallbackText(view)).toBe(
      "Today's budget is spent: replies come from Llama 3.2 until it resets at 00:00 UTC.",
    );
  });
});
