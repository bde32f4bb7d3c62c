import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { tooFastMessage } from "~/chat/chat-rate-limit.server";
import { describeChatError } from "~/chat/client-errors";
import { lastUtcDays, nextUtcMidnight, utcDay } from "~/time/day";
import { describeModelError } from "~/chat/model-errors.server";
import { formatResetTime, quotaExhaustedMessage, remainingText } from "~/budgets/quota-text";

describe("quota days and reset times", () => {
  it("counts UTC days and resets at the next UTC midnight", () => {
    const late = new Date("2025-12-31T23:59:59Z");
    expect(utcDay(late)).toBe("2025-12-31");
    expect(nextUtcMidnight(late).toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(lastUtcDays(new Date("2025-03-02T05:00:00Z"), 3)).toEqual(["2025-02-28", "2025-03-01", "2025-03-02"]);
  });

  it("says when the quota resets, in UTC or the reader's zone", () => {
    const midnight = new Date("2025-06-02T00:00:00Z");
    expect(formatResetTime(midnight)).toBe("00:00 UTC");
    expect(formatResetTime(midnight, "Asia/Tokyo")).toBe("09:00 GMT+9");
    expect(quotaExhaustedMessage(20, midnight)).toBe(
      "You've used all 20 of your messages for today. Your quota resets at 00:00 UTC.",
    );
    expect(quotaExhaustedMessage(1, midnight)).toBe(
      "You've used your 1 message for today. Your quota resets at 00:00 UTC.",
    );
    expect(remainingText(1)).toBe("1 message left today");
    expect(remainingText(7)).toBe("7 messages left today");
  });
});

describe("errors in plain words", () => {
  const apiError = (statusCode: number | undefined) =>
    new APICallError({
      message: "details nobody should see",
      url: "http://10.0.0.5/v1/chat/completions",
      requestBodyValues: {},
      statusCode,
    });

  it("names the kind of model failure without leaking details", () => {
    expect(describeModelError(apiError(undefined))).toBe(
      "The model can't be reached right now. Please try again in a moment.",
    );
    expect(describeModelError(apiError(429))).toMatch(/busy \(too many requests\)/);
    expect(describeModelError(apiError(401))).toMatch(/refused the server's credentials/);
    expect(describeModelError(apiError(404))).toMatch(/doesn't know this model/);
    expect(describeModelError(apiError(502))).toMatch(/had a problem answering/);
    for (const status of [undefined, 400, 429, 500])
      expect(describeModelError(apiError(status))).not.toMatch(/10\.0\.0\.5|details/);
    const parse = new Error("Unexpected token");
    parse.name = "AI_JSONParseError";
    expect(describeModelError(parse)).toMatch(/couldn't be read/);
  });

  it("turns the chat endpoint's answers and network failures into messages for the user", () => {
    const http = (statusCode: number, body: unknown) =>
      Object.assign(new Error("x"), {
        statusCode,
        responseBody: typeof body === "string" ? body : JSON.stringify(body),
      });
    expect(describeChatError(http(400, { error: "Your message is too long." }))).toMatchObject({
      message: "Your message is too long.",
    });
    expect(describeChatError(http(401, { error: "Please log in to chat." }))).toMatchObject({ signedOut: true });
    const quota = describeChatError(http(429, { error: "x", resetsAt: "2025-06-02T00:00:00.000Z", limit: 20 }), "UTC");
    expect(quota).toEqual({
      message: "You've used all 20 of your messages for today. Your quota resets at 00:00 UTC.",
      quotaExhausted: true,
      signedOut: false,
    });
    // A spent budget, in the reader's time zone; too little left for this message, in the server's words.
    const line = {
      kind: "dailyTokens",
      limit: 20_000,
      left: 0,
      resetsAt: "2025-06-02T00:00:00.000Z",
      spent: true,
      nearlySpent: true,
    };
    expect(
      describeChatError(
        http(429, { kind: "budget", error: "x", resetsAt: line.resetsAt, budget: line }),
        "Europe/Paris",
      ),
    ).toEqual({
      message: "You've used today's budget of 20,000 tokens. It resets at 02:00 CEST.",
      quotaExhausted: true,
      signedOut: false,
    });
    const tooBig = "What's left of today's budget (50 tokens) isn't enough for this message and its reply.";
    expect(
      describeChatError(http(429, { kind: "budget", error: tooBig, resetsAt: line.resetsAt, budget: null })),
    ).toMatchObject({ message: tooBig, quotaExhausted: true });
    // Sending too fast is not the daily quota: Retry stays on offer.
    const tooFast = describeChatError(http(429, { error: tooFastMessage(42) }));
    expect(tooFast).toEqual({
      message: "You're sending messages faster than allowed. Please wait 42 seconds and send again.",
      quotaExhausted: false,
      signedOut: false,
    });
    expect(describeChatError(http(502, "<html>Bad gateway</html>")).message).toBe(
      "The server had a problem. Please try again in a moment.",
    );
    expect(describeChatError(new TypeError("Failed to fetch")).message).toBe(
      "The connection was lost. Check your network and try again.",
    );
    expect(describeChatError(new Error("The model took too long to answer. Please try again.")).message).toBe(
      "The model took too long to answer. Please try again.",
    );
  });
});
