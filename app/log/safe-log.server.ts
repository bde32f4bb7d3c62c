/**
 * Log lines that cannot carry user text or forge other lines (ADR 052).
 *
 * An error's message is never logged: a failed query's message holds every
 * parameter (a user's message, a reply, a uid), and a message with newlines
 * would write lines indistinguishable from real ones. What is logged instead
 * is the error's class and its code (SQLSTATE, Firebase code, HTTP status),
 * which say what went wrong without saying what the user wrote.
 *
 * The lines go through the app's logger (logger.server.ts: JSON with the
 * request id), whose encoding escapes too; the escaping here keeps a line
 * safe in the human-readable format and in any text a caller builds from it.
 */
import { log } from "./logger.server";

// C0 and C1 controls, DEL, and the Unicode line/paragraph separators some log viewers break on.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `value` on one line: control characters become `\n`, `\u0000`… as in JSON, so nothing interpolated can start a line. */
export function escapeForLog(value: string): string {
  return value.replace(UNSAFE, (char) => {
    const escaped = JSON.stringify(char).slice(1, -1);
    // JSON leaves DEL, C1 controls and U+2028/2029 as they are.
    return escaped === char ? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}` : escaped;
  });
}

/** A short identifier-like value (a class name, an error code) or nothing. */
function shortToken(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string" || value.length === 0) return undefined;
  return escapeForLog(value.slice(0, 80));
}

function className(error: Error): string {
  // Some libraries leave `name` as "Error" (Drizzle's DrizzleQueryError): the constructor says more.
  const constructorName = (error.constructor as { name?: unknown } | undefined)?.name;
  if (error.name === "Error" && typeof constructorName === "string" && constructorName !== "") return constructorName;
  return shortToken(error.name) ?? "Error";
}

/** The first code along the cause chain: a driver's SQLSTATE sits on the cause of Drizzle's error. */
function errorCode(error: Error): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const record = current as { code?: unknown; status?: unknown; cause?: unknown };
    const code = shortToken(record.code) ?? shortToken(record.status);
    if (code) return code;
    current = record.cause;
  }
  return undefined;
}

/**
 * What an error was, without what it said: `DrizzleQueryError (code 22021)`.
 * `keepMessage` is for the app's own errors whose text is fixed by the app
 * (a timeout naming the backend and the deadline).
 */
export function describeError(error: unknown, keepMessage = false): string {
  if (!(error instanceof Error))
    return error === undefined || error === null ? "unknown error" : `non-error ${typeof error}`;
  const code = errorCode(error);
  const what = code ? `${className(error)} (code ${code})` : className(error);
  return keepMessage ? `${what}: ${escapeForLog(error.message)}` : what;
}

/** The code locations of a stack (its "at …" lines, on one line), never its first line: that is the message. */
export function stackFrames(error: unknown, max = 6): string {
  if (!(error instanceof Error) || typeof error.stack !== "string") return "";
  const frames = error.stack
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .slice(0, max)
    .map((line) => escapeForLog(line.trim()));
  return frames.join(" | ");
}

/** One line for an error nobody expected (a 500): where it happened, its class and code, where in the code. */
export function logUnexpectedError(where: string, error: unknown): void {
  const frames = stackFrames(error);
  const what = describeError(error);
  log().error(
    { where: escapeForLog(where), error: what },
    `[${escapeForLog(where)}] unexpected ${what}${frames ? ` ${frames}` : ""}`,
  );
}
