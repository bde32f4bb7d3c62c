import { describeError, escapeForLog } from "~/log/safe-log.server";

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

export async function withDeadline<T>(
  backend: string,
  ms: number,
  work: Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BackendUnavailableError(backend, `${backend} did not answer within ${ms} ms`)),
      ms,
    );
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
 * start a forged line (L-4).
 */
export function logBackendFault(backend: string, context: string, error: unknown) {
  const key = `${backend}:${context}`;
  if (reported.has(key)) return;
  reported.add(key);
  const what = describeError(error, error instanceof BackendUnavailableError);
  console.error(`[${escapeForLog(backend)}] ${escapeForLog(context)}: ${what}`);
}

export function logBackendRecovered(backend: string) {
  let had = false;
  for (const key of reported) {
    if (key.startsWith(`${backend}:`)) {
      reported.delete(key);
      had = true;
    }
  }
  if (had) console.error(`[${escapeForLog(backend)}] reachable again`);
}
