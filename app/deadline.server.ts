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

export function logBackendFault(backend: string, context: string, error: unknown) {
  const message = error instanceof Error ? error.message : String(error);
  const key = `${backend}:${context}`;
  if (reported.has(key)) return;
  reported.add(key);
  console.error(`[${backend}] ${context}: ${message}`);
}

export function logBackendRecovered(backend: string) {
  let had = false;
  for (const key of reported) {
    if (key.startsWith(`${backend}:`)) {
      reported.delete(key);
      had = true;
    }
  }
  if (had) console.error(`[${backend}] reachable again`);
}
