/**
 * The range of magnitudes the number tools (calculator, unit converter) work in.
 *
 * decimal.js keeps every result to a fixed number of significant digits, so the
 * cost of an operation is set by its operands' exponents, not by their digits:
 * `1e100000000 mod 7` builds a hundred-million-digit quotient and blocks the
 * event loop for hours. Every number the tools read or produce must stay
 * within 10^±MAX_EXPONENT; with that, the costliest step — a
 * remainder whose quotient has at most 2·MAX_EXPONENT + 1 digits — takes well
 * under a millisecond, so no tool call can stall the server (ADR 040).
 */
import type Decimal from "decimal.js";

/** Nonzero magnitudes lie in [1e-1000, 1e1001): far beyond everyday numbers, and cheap to compute with. */
export const MAX_EXPONENT = 1000;

export type MagnitudeProblem = "too large" | "too small";

/** Why a value is outside the range, or null when it is zero or inside it. Infinity and NaN count as too large. */
export function magnitudeProblem(value: Decimal): MagnitudeProblem | null {
  if (!value.isFinite()) return "too large";
  if (value.isZero()) return null;
  // `e` is decimal.js's exponent: 1.5e3 has e = 3.
  if (value.e > MAX_EXPONENT) return "too large";
  if (value.e < -MAX_EXPONENT) return "too small";
  return null;
}

/** The bound in words, for error messages the model relays. */
export const MAGNITUDE_RANGE_TEXT = `numbers from 1e-${MAX_EXPONENT} to 1e${MAX_EXPONENT} in size (exponents -${MAX_EXPONENT} to ${MAX_EXPONENT})`;
