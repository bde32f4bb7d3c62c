import pino, { type DestinationStream, type Logger } from "pino";
import { getConfig } from "~/config.server";
import { currentRequest } from "./request-context.server";

/**
 * The app's one logger: JSON lines (pino) on stderr, where the app's lines
 * have always gone, each with the request id, the route id and the account's
 * uid of the request it belongs to (request-context.server.ts). In local mode
 * (or LOG_FORMAT=pretty) the same lines are written for a person to read.
 *
 * What a line may hold is decided by its callers (safe-log.server.ts: error
 * classes and codes, never messages; no cookie, token, password, key or
 * message text); the redaction below is a second net for field names that
 * should never appear, not the first.
 */

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type LogFormat = "json" | "pretty";

const REDACTED_FIELDS = ["cookie", "authorization", "password", "token", "idToken", "apiKey", "key", "content", "text"];

let sink: DestinationStream | undefined;
let logger: Logger | undefined;

function settings(): { level: LogLevel; format: LogFormat } {
  try {
    return getConfig().log;
  } catch {
    // An invalid configuration is reported (and the process stopped) at boot; its message still needs a logger.
    return { level: "info", format: "json" };
  }
}

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
const SHOWN_ELSEWHERE = new Set(["level", "time", "msg", "pid", "hostname", "reqId"]);

/** One JSON line as a person reads it: `12:00:01.234 ERROR [req-id] message route=… uid=…`. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const time = typeof entry.time === "string" ? entry.time.slice(11, 23) : "";
  const level = (LEVEL_NAMES[entry.level as number] ?? String(entry.level)).padEnd(5);
  const request = entry.reqId ? ` [${String(entry.reqId)}]` : "";
  // Values are JSON-encoded, so a value cannot break the line either.
  const fields = Object.entries(entry)
    .filter(([name]) => !SHOWN_ELSEWHERE.has(name))
    .map(
      ([name, value]) =>
        `${name}=${typeof value === "string" && /^[\w./:@-]*$/.test(value) ? value : JSON.stringify(value)}`,
    );
  return `${time} ${level}${request} ${String(entry.msg ?? "")}${fields.length ? ` ${fields.join(" ")}` : ""}`;
}

function prettyStderr(): DestinationStream {
  return { write: (line: string) => void process.stderr.write(`${prettyLine(line)}\n`) };
}

function createLogger(): Logger {
  const { level, format } = settings();
  const destination = sink ?? (format === "pretty" ? prettyStderr() : pino.destination({ dest: 2, sync: true }));
  return pino(
    {
      level: sink ? "trace" : level,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACTED_FIELDS, ...REDACTED_FIELDS.map((name) => `*.${name}`)], censor: "[redacted]" },
      mixin() {
        const request = currentRequest();
        return request
          ? { reqId: request.requestId, route: request.route, ...(request.uid ? { uid: request.uid } : {}) }
          : {};
      },
    },
    destination,
  );
}

export function log(): Logger {
  logger ??= createLogger();
  return logger;
}

/**
 * For tests: every line (all levels) goes to `destination` instead of stderr,
 * until called again without one.
 */
export function setLogDestination(destination: DestinationStream | undefined): void {
  sink = destination;
  logger = undefined;
}
