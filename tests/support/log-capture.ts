import { setLogDestination } from "~/log/logger.server";

/**
 * Every line the app's logger writes (all levels, as JSON), captured until
 * `restore`: what an operator's log would receive, for asserting on.
 */
export function captureLogs() {
  const lines: string[] = [];
  setLogDestination({ write: (chunk: string) => void lines.push(...chunk.split("\n").filter((line) => line !== "")) });
  return {
    /** The raw lines, as written (one JSON object each). */
    lines,
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown> & { msg: string; level: number }),
    restore: () => setLogDestination(undefined),
  };
}
