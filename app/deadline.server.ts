import { log } from "~/log/logger.server";
import { describeError, escapeForLog } from "~/log/safe-log.server";
import { countBackendFault } from "~/metrics/metrics.server";

/**
 * Every call to a backend (identity service, Firestore, PostgreSQL, a model)
 * gets a deadline, so a stalled dependency degrades a page instead of hanging it.
 */
export class BackendUnavailableError extends Error {
  constructor(
    readonly backend: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "BackendUnavailableError";
  }
}

export async function withDeadline<T>(backend: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      countBackendFault(backend, "timeout");
      reject(new BackendUnavailableError(backend, `${backend} did not answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Logs a backend fault once per backend and kind until it recovers, so an
 * outage does not flood the log with one line per request.
 */
const reported = new Set<string>();

/**
 * The line names the backend, the context and the error's class and code,
 * never the error's message: a failed query's message holds its parameters
 * (user text, uids). Only our own timeout's message, which the app wrote, is
 * kept. Everything interpolated is escaped, so a context naming a user cannot
 * start a forged line (ADR 052).
 */
export function logBackendFault(backend: string, context: string, error: unknown) {
  // Counted every time (the log line is once per outage); a timeout was counted where it fired.
  if (!(error instanceof BackendUnavailableError)) countBackendFault(backend, "fault");
  const key = `${backend}:${context}`;
  if (reported.has(key)) return;
  reported.add(key);
  const what = describeError(error, error instanceof BackendUnavailableError);
  log().error(
    { store: escapeForLog(backend), error: what },
    `[${escapeForLog(backend)}] ${escapeForLog(context)}: ${what}`,
  );
}

export function logBackendRecovered(backend: string) {
  let had = false;
  for (const key of reported) {
    if (key.startsWith(`${backend}:`)) {
      reported.delete(key);
      had = true;
    }
  }
  if (had) log().warn({ store: escapeForLog(backend) }, `[${escapeForLog(backend)}] reachable again`);
}
