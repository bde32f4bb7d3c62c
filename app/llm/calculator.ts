/**
 * Exact decimal arithmetic for the `calculator` tool.
 *
 * Language models are poor at arithmetic and binary floating point answers
 * 0.1 + 0.2 with 0.30000000000000004, so expressions are parsed by hand (no
 * eval: the input comes from a model that may echo user text) and computed
 * with decimal.js.
 *
 * Grammar, loosest binding first:
 *   expression := term (("+" | "-") term)*
 *   term       := unary (("*" | "/" | "mod") unary)*
 *   unary      := ("-" | "+") unary | power
 *   power      := postfix ("^" unary)?          right-associative; -2^2 = -4
 *   postfix    := primary "%"*                  50% = 0.5
 *   primary    := number | constant | function "(" expression ")" | "(" expression ")"
 *
 * Every number read or computed must stay within 10^±MAX_EXPONENT (./magnitude):
 * decimal.js's work grows with its operands' exponents, and `1e100000000 mod 7`
 * alone would block the server for hours. Powers are refused from an estimate
 * before they are computed; everything else is checked as it is produced.
 */
import Decimal from "decimal.js";
import { MAGNITUDE_RANGE_TEXT, MAX_EXPONENT, magnitudeProblem } from "./magnitude";

export const MAX_EXPRESSION_LENGTH = 500;

/** 34 significant digits, as IEEE decimal128; plain notation for everyday magnitudes. */
const Exact = Decimal.clone({ precision: 34, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -20, toExpPos: 34 });

/** A problem with the expression, worded for the model to relay or fix. */
export class CalculatorError extends Error {
  override name = "CalculatorError";
}

export type CalculationResult = { expression: string; result: string } | { expression: string; error: string };

/** Evaluates for the tool: never throws, reports problems as `{ error }`. */
export function calculate(expression: string): CalculationResult {
  try {
    return { expression, result: evaluateExpression(expression).toString() };
  } catch (error) {
    if (error instanceof CalculatorError) return { expression, error: error.message };
    // A library fault's own text ("Invalid array length") means nothing to the model or the
    // reader and would be stored in the transcript; the log gets its kind, not the user's input.
    console.error(`[calculator] unexpected ${error instanceof Error ? error.name : "failure"}`);
    return { expression, error: "The calculator could not evaluate this expression." };
  }
}

/** Evaluates an arithmetic expression exactly; throws CalculatorError on bad input. */
export function evaluateExpression(expression: string): Decimal {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError(
      `Expression is too long (${expression.length} characters, at most ${MAX_EXPRESSION_LENGTH}).`,
    );
  }
  const tokens = tokenize(expression);
  if (tokens.length === 0) throw new CalculatorError("The expression is empty.");
  const parser = new Parser(tokens);
  const value = parser.parseExpression();
  parser.expectEnd();
  return value;
}

type Token =
  | { kind: "number"; text: string; position: number }
  | { kind: "name"; text: string; position: number }
  | { kind: "operator"; text: "+" | "-" | "*" | "/" | "^" | "%" | "(" | ")"; position: number };

const OPERATOR_SPELLINGS: Record<string, Extract<Token, { kind: "operator" }>["text"]> = {
  "**": "^",
  "+": "+",
  "-": "-",
  "−": "-",
  "*": "*",
  "×": "*",
  "/": "/",
  "÷": "/",
  "^": "^",
  "%": "%",
  "(": "(",
  ")": ")",
};

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[a-zA-Z]+/;

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < expression.length) {
    const rest = expression.slice(position);
    const space = /^\s+/.exec(rest);
    if (space) {
      position += space[0].length;
      continue;
    }
    const number = NUMBER.exec(rest);
    if (number) {
      tokens.push({ kind: "number", text: number[0], position });
      position += number[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      tokens.push({ kind: "name", text: name[0].toLowerCase(), position });
      position += name[0].length;
      continue;
    }
    const spelling = rest.startsWith("**") ? "**" : rest.charAt(0);
    const operator = OPERATOR_SPELLINGS[spelling];
    if (!operator) {
      throw new CalculatorError(`Unexpected character "${rest.charAt(0)}" at position ${position + 1}.`);
    }
    tokens.push({ kind: "operator", text: operator, position });
    position += spelling.length;
  }
  return tokens;
}

const CONSTANTS: Record<string, () => Decimal> = {
  pi: () => Exact.acos(-1),
  e: () => Exact.exp(1),
};

const FUNCTIONS: Record<string, (x: Decimal) => Decimal> = {
  sqrt: (x) => {
    if (x.isNegative()) throw new CalculatorError("Square root of a negative number is not a real number.");
    return x.sqrt();
  },
  abs: (x) => x.abs(),
  round: (x) => x.toDecimalPlaces(0, Decimal.ROUND_HALF_UP),
  floor: (x) => x.floor(),
  ceil: (x) => x.ceil(),
};

class Parser {
  private index = 0;

  constructor(private readonly tokens: Token[]) {}

  parseExpression(): Decimal {
    let value = this.parseTerm();
    for (;;) {
      if (this.takeOperator("+")) value = inRange(value.plus(this.parseTerm()));
      else if (this.takeOperator("-")) value = inRange(value.minus(this.parseTerm()));
      else return value;
    }
  }

  expectEnd(): void {
    const token = this.peek();
    if (!token) return;
    const previous = this.tokens[this.index - 1];
    // "10 % 3" is a common way to ask for a remainder, but here % means percent.
    const hint = previous?.text === "%" ? ' "%" means percent here; use "mod" for the remainder.' : "";
    throw new CalculatorError(`Unexpected "${token.text}" at position ${token.position + 1}.${hint}`);
  }

  private parseTerm(): Decimal {
    let value = this.parseUnary();
    for (;;) {
      if (this.takeOperator("*")) {
        value = inRange(value.times(this.parseUnary()));
      } else if (this.takeOperator("/")) {
        const divisor = this.parseUnary();
        if (divisor.isZero()) throw new CalculatorError("Division by zero.");
        value = inRange(value.dividedBy(divisor));
      } else if (this.takeName("mod")) {
        const divisor = this.parseUnary();
        if (divisor.isZero()) throw new CalculatorError("Modulo by zero.");
        // Both operands are in range, so the quotient decimal.js builds has at most
        // 2·MAX_EXPONENT + 1 integer digits (quadratic work, but on a few thousand digits).
        value = inRange(value.modulo(divisor));
      } else {
        return value;
      }
    }
  }

  private parseUnary(): Decimal {
    if (this.takeOperator("-")) return this.parseUnary().negated();
    if (this.takeOperator("+")) return this.parseUnary();
    return this.parsePower();
  }

  private parsePower(): Decimal {
    const base = this.parsePostfix();
    if (!this.takeOperator("^")) return base;
    const exponent = this.parseUnary();
    if (base.isZero() && exponent.isNegative())
      throw new CalculatorError("Division by zero (zero to a negative power).");
    if (base.isNegative() && !exponent.isInteger()) {
      throw new CalculatorError("A negative number to a fractional power is not a real number.");
    }
    refuseOutOfRangePower(base, exponent);
    return inRange(base.pow(exponent));
  }

  private parsePostfix(): Decimal {
    let value = this.parsePrimary();
    while (this.takeOperator("%")) value = inRange(value.dividedBy(100));
    return value;
  }

  private parsePrimary(): Decimal {
    const token = this.next();
    if (!token) throw new CalculatorError("The expression ends too early.");
    if (token.kind === "number") return inRange(new Exact(token.text));
    if (token.kind === "operator" && token.text === "(") {
      const value = this.parseExpression();
      this.expectOperator(")");
      return value;
    }
    if (token.kind === "name") {
      const constant = CONSTANTS[token.text];
      if (constant) return constant();
      const fn = FUNCTIONS[token.text];
      if (fn) {
        this.expectOperator("(");
        const argument = this.parseExpression();
        this.expectOperator(")");
        return inRange(fn(argument));
      }
      const known = [...Object.keys(FUNCTIONS), ...Object.keys(CONSTANTS), "mod"].join(", ");
      throw new CalculatorError(
        `Unknown name "${token.text}" at position ${token.position + 1}. Known names: ${known}.`,
      );
    }
    throw new CalculatorError(`Unexpected "${token.text}" at position ${token.position + 1}.`);
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }

  private next(): Token | undefined {
    const token = this.tokens[this.index];
    if (token) this.index += 1;
    return token;
  }

  private takeOperator(text: string): boolean {
    const token = this.peek();
    if (token?.kind !== "operator" || token.text !== text) return false;
    this.index += 1;
    return true;
  }

  private takeName(text: string): boolean {
    const token = this.peek();
    if (token?.kind !== "name" || token.text !== text) return false;
    this.index += 1;
    return true;
  }

  private expectOperator(text: string): void {
    if (this.takeOperator(text)) return;
    const token = this.peek();
    throw new CalculatorError(
      token
        ? `Expected "${text}" at position ${token.position + 1}, found "${token.text}".`
        : `Missing "${text}" at the end.`,
    );
  }
}

function outOfRange(problem: "too large" | "too small"): CalculatorError {
  const what = problem === "too large" ? "too large" : "too close to zero";
  return new CalculatorError(`The number is ${what} to compute: the calculator works with ${MAGNITUDE_RANGE_TEXT}.`);
}

/** Every number the calculator reads or produces passes here (decimal.js's overflow, Infinity, included). */
function inRange(value: Decimal): Decimal {
  const problem = magnitudeProblem(value);
  if (problem) throw outOfRange(problem);
  return value;
}

/** Below this distance from 1 a float logarithm of the base loses the digits that matter. */
const NEAR_ONE = new Exact("0.001");
const LN10 = new Exact(Math.LN10);

/**
 * Refuses base^exponent before computing it when the answer is clearly out of
 * range (log10|answer| = exponent · log10|base|), so `9^9^9^9` or
 * `1.0000001^99999999999999` cost nothing. The estimate may be off by a little;
 * the result is checked again, so the margin only keeps borderline answers.
 */
function refuseOutOfRangePower(base: Decimal, exponent: Decimal): void {
  if (base.isZero()) return;
  const size = base.abs();
  const distanceFromOne = size.minus(1);
  const log10Size = distanceFromOne.abs().lt(NEAR_ONE)
    ? // ln(1 + d) ≈ d: keeps 1.0000000000000000000001^1e30 from looking like 1^1e30.
      distanceFromOne.dividedBy(LN10)
    : new Exact(size.e + Math.log10(Number(size.toExponential(16).split("e")[0])));
  const estimate = log10Size.times(exponent);
  if (estimate.gt(MAX_EXPONENT + 2)) throw outOfRange("too large");
  if (estimate.lt(-MAX_EXPONENT - 2)) throw outOfRange("too small");
}
