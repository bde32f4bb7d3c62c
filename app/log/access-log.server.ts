/**
 * remix-serve's access log without user content (docs/decisions/077).
 *
 * Operators run plain `remix-serve build/index.js`, whose built-in access log
 * (morgan "tiny", node_modules/@remix-run/serve/dist/cli.js) writes
 * `METHOD URL STATUS LENGTH - TIME ms` to process.stdout with the whole URL:
 * the query string holds conversation searches (`/nuvara?q=…`) and the path
 * of a share link holds its only secret (`/s/<id>`). There is no option to
 * change that and no server of ours to replace it, but morgan writes each
 * line with one `process.stdout.write` call when the request ends, so the
 * server build rewrites those lines on their way out: no query string, and a
 * share id becomes `…`. Other writes to stdout pass unchanged; the app's own
 * log lines (pino, app/log/logger.server.ts) go to stderr and never pass here.
 */

/** morgan's "tiny" format, as remix-serve uses it. */
const ACCESS_LINE = /^([A-Z][A-Z0-9_-]*) (\S+) (\S+ \S+ - \S+ ms)$/;
/** An absolute-form request target ("GET http://host/s/… HTTP/1.1"): only its path is kept. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i;
export const REDACTED = "…";

const INSTALLED = Symbol.for("nuvara.accessLogRedacted");

/** Rewrites stdout's access-log lines from now on; once per process (a development rebuild loads the build again). */
export function redactAccessLog(stream: NodeJS.WriteStream = process.stdout): void {
  const marked = stream as NodeJS.WriteStream & { [INSTALLED]?: true };
  if (marked[INSTALLED]) return;
  marked[INSTALLED] = true;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === "string" ? redactAccessLines(chunk) : chunk, ...rest)) as typeof stream.write;
}

/** Every access-log line of `text` without user content; any other line as it was. */
export function redactAccessLines(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const match = ACCESS_LINE.exec(line);
      return match ? `${match[1]} ${redactedTarget(match[2])} ${match[3]}` : line;
    })
    .join("\n");
}

/** The request's path without its query string, and with a share id (the link's whole secret) replaced. */
export function redactedTarget(target: string): string {
  const path = target.replace(/[?#].*$/s, "").replace(ORIGIN, "") || "/";
  // Matched as the router would: any case, any run of slashes, percent-escapes decoded.
  const segments = path.split("/").filter(Boolean).map(decoded);
  if (segments[0] === "s" && segments.length > 1) return `/s/${REDACTED}`;
  if (segments[0] === "api" && segments[1] === "shares" && segments.length > 2) return `/api/shares/${REDACTED}`;
  return path;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}
