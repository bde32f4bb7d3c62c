import { describe, expect, it } from "vitest";
import { calculate, MAX_EXPRESSION_LENGTH } from "../../../app/llm/calculator";

function resultOf(expression: string): string {
  const outcome = calculate(expression);
  if (!("result" in outcome)) throw new Error(`expected a result for "${expression}", got error: ${outcome.error}`);
  return outcome.result;
}

function errorOf(expression: string): string {
  const outcome = calculate(expression);
  if (!("error" in outcome)) throw new Error(`expected an error for "${expression}", got ${outcome.result}`);
  return outcome.error;
}

describe("calculator: exact decimal arithmetic", () => {
  it.each([
    ["0.1 + 0.2", "0.3"],
    ["0.1 * 3", "0.3"],
    ["1.1 * 1.1", "1.21"],
    ["0.3 - 0.1", "0.2"],
    [".5 + .5", "1"],
    ["1.5e3 + 1", "1501"],
    ["19.99 * 3", "59.97"],
  ])("%s = %s", (expression, expected) => {
    expect(resultOf(expression)).toBe(expected);
  });

  it("keeps 34 significant digits for non-terminating quotients", () => {
    expect(resultOf("1/3")).toBe("0.3333333333333333333333333333333333");
    expect(resultOf("2/3")).toBe("0.6666666666666666666666666666666667");
  });

  it("multiplies large integers without float rounding", () => {
    expect(resultOf("123456789 * 987654321")).toBe("121932631112635269");
  });
});

describe("calculator: precedence and associativity", () => {
  it.each([
    ["2 + 3 * 4", "14"],
    ["(2 + 3) * 4", "20"],
    ["10 - 4 - 3", "3"],
    ["8 / 2 / 2", "2"],
    ["2 ^ 3 ^ 2", "512"], // right-associative: 2^(3^2)
    ["-2 ^ 2", "-4"], // power binds tighter than unary minus
    ["(-2) ^ 2", "4"],
    ["2 ^ -2", "0.25"],
    ["-(2 + 3) * -2", "10"],
    ["2 ** 10", "1024"],
    ["2 × 3 ÷ 4", "1.5"],
    ["1 + 2 * 3 ^ 2 / 6 - 1", "3"],
  ])("%s = %s", (expression, expected) => {
    expect(resultOf(expression)).toBe(expected);
  });
});

describe("calculator: percent, remainder, functions and constants", () => {
  it.each([
    ["50%", "0.5"],
    ["200 * 15%", "30"],
    ["10 mod 3", "1"],
    ["-7 mod 3", "-1"],
    ["sqrt(16)", "4"],
    ["sqrt(2) ^ 2", "2"],
    ["abs(-3) + floor(2.7) + ceil(2.1)", "8"],
    ["round(2.5)", "3"],
    ["ROUND(-2.5)", "-3"],
    ["9 ^ 0.5", "3"],
  ])("%s = %s", (expression, expected) => {
    expect(resultOf(expression)).toBe(expected);
  });

  it("knows pi and e to 34 digits", () => {
    expect(resultOf("pi")).toBe("3.141592653589793238462643383279503");
    expect(resultOf("e")).toBe("2.718281828459045235360287471352662");
  });
});

describe("calculator: errors come back as { error }, never thrown", () => {
  it("reports division and modulo by zero", () => {
    expect(errorOf("1 / 0")).toBe("Division by zero.");
    expect(errorOf("1 / (2 - 2)")).toBe("Division by zero.");
    expect(errorOf("5 mod 0")).toBe("Modulo by zero.");
    expect(errorOf("0 ^ -1")).toMatch(/division by zero/i);
  });

  it("reports results that are not real numbers", () => {
    expect(errorOf("sqrt(-1)")).toMatch(/negative/);
    expect(errorOf("(-8) ^ (1/3)")).toMatch(/fractional power/);
  });

  it("reports overflow instead of returning Infinity", () => {
    expect(errorOf("9 ^ 9 ^ 9 ^ 9")).toMatch(/too large/);
    expect(errorOf("1e9999999999999999")).toMatch(/too large/);
  });

  it.each([
    ["1 +", /ends too early/],
    ["((1)", /Missing "\)"/],
    ["2 (3)", /Unexpected "\(" at position 3/],
    ["0.1.2", /Unexpected "\.2"/],
    ["3 $ 4", /Unexpected character "\$" at position 3/],
    ["foo(2)", /Unknown name "foo".*sqrt/],
    ["", /empty/],
    ["   ", /empty/],
  ])("rejects malformed %j", (expression, message) => {
    expect(errorOf(expression)).toMatch(message);
  });

  it("hints at mod when % is used as a remainder", () => {
    expect(errorOf("10 % 3")).toMatch(/use "mod" for the remainder/);
  });

  it("rejects expressions over the length limit but accepts one at the limit", () => {
    const atLimit = "2 + 3".padEnd(MAX_EXPRESSION_LENGTH, " ");
    expect(resultOf(atLimit)).toBe("5");
    expect(errorOf(atLimit + "1")).toMatch(/too long/);
  });

  it("handles deep nesting within the limit", () => {
    expect(resultOf("(".repeat(200) + "1" + ")".repeat(200))).toBe("1");
    expect(resultOf("-".repeat(199) + "1")).toBe("-1");
  });

  it("echoes the expression it worked on", () => {
    expect(calculate("1+1")).toEqual({ expression: "1+1", result: "2" });
    expect(calculate("1/0")).toEqual({ expression: "1/0", error: "Division by zero." });
  });
});

/**
 * ADR 040: decimal.js's work grows with its operands' exponents, and the
 * tool runs on the server's only thread: `1e10000000 mod 7` took 86 s,
 * `1e100000000 mod 7` hours, and some expressions allocated gigabytes before
 * a RangeError whose text reached the transcript. Each of those expressions
 * now gets a clear error at once (on the old code these tests time out or
 * return the library's RangeError).
 */
describe("calculator: magnitudes are bounded", () => {
  it.each([
    "1e10000000 mod 7",
    "1e100000000 mod 7",
    "1e9000000000000000 mod 7",
    "1e1000000000 mod 7",
    "7 mod 1e-100000000",
    "1e100000000 / 3",
    "1e100000000 * 1e100000000",
    "1e100000000 + 1",
    "10^100000000 mod 7",
    "9^9^9^9",
    "(10^1000)^1000",
    "1.0000001^99999999999999",
    "2^-99999999",
    "sqrt(1e100000000)",
    "1e1001",
    "1e-1001",
  ])("%s → a clear error saying what is too large or too small", (expression) => {
    const error = errorOf(expression);
    expect(error).toMatch(
      /^The number is too (large|close to zero) to compute: the calculator works with numbers from 1e-1000 to 1e1000/,
    );
    expect(error).not.toMatch(/RangeError|Invalid array length|Infinity/);
  });

  it("keeps large everyday and scientific numbers exact within the range", () => {
    expect(resultOf("1e1000 mod 7")).toBe("4");
    expect(resultOf("2^64")).toBe("18446744073709551616");
    expect(resultOf("10^1000 / 10^999")).toBe("10");
    expect(resultOf("1.0000000000000000000001^1000")).toBe("1.0000000000000000001");
    expect(resultOf("1e-1000 * 1")).toBe("1e-1000");
  });

  it("a worst case within the range still answers", () => {
    // The costliest in-range remainder: a 1001-digit quotient.
    expect(resultOf("9.999e1000 mod 1e-1000")).toBe("0");
    expect(resultOf("(1e1000 - 1) mod 7")).toMatch(/^\d$/);
  });
});
