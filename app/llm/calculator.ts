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
 */
import Decimal from "decimal.js";

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
    throw error;
  }
}

/** Evaluates an arithmetic expression exactly; throws CalculatorError on bad input. */
export function evaluateExpression(expression: string): Decimal {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError(`Expression is too long (${expression.length} characters, at most ${MAX_EXPRESSION_LENGTH}).`);
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
      if (this.takeOperator("+")) value = checked(value.plus(this.parseTerm()));
      else if (this.takeOperator("-")) value = checked(value.minus(this.parseTerm()));
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
        value = checked(value.times(this.parseUnary()));
      } else if (this.takeOperator("/")) {
        const divisor = this.parseUnary();
        if (divisor.isZero()) throw new CalculatorError("Division by zero.");
        value = checked(value.dividedBy(divisor));
      } else if (this.takeName("mod")) {
        const divisor = this.parseUnary();
        if (divisor.isZero()) throw new CalculatorError("Modulo by zero.");
        value = checked(value.modulo(divisor));
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
    if (base.isZero() && exponent.isNegative()) throw new CalculatorError("Division by zero (zero to a negative power).");
    if (base.isNegative() && !exponent.isInteger()) {
      throw new CalculatorError("A negative number to a fractional power is not a real number.");
    }
    return checked(base.pow(exponent));
  }

  private parsePostfix(): Decimal {
    let value = this.parsePrimary();
    while (this.takeOperator("%")) value = value.dividedBy(100);
    return value;
  }

  private parsePrimary(): Decimal {
    const token = this.next();
    if (!token) throw new CalculatorError("The expression ends too early.");
    if (token.kind === "number") return checked(new Exact(token.text));
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
        return fn(argument);
      }
      const known = [...Object.keys(FUNCTIONS), ...Object.keys(CONSTANTS), "mod"].join(", ");
      throw new CalculatorError(`Unknown name "${token.text}" at position ${token.position + 1}. Known names: ${known}.`);
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
      token ? `Expected "${text}" at position ${token.position + 1}, found "${token.text}".` : `Missing "${text}" at the end.`,
    );
  }
}

/** decimal.js answers overflow with Infinity; the model should hear that plainly. */
function checked(value: Decimal): Decimal {
  if (!value.isFinite()) throw new CalculatorError("The result is too large to represent.");
  return value;
}
