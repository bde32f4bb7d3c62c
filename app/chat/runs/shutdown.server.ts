import { log } from "~/log/logger.server";
import { runSettings } from "./run-settings.server";

/**
 * Graceful shutdown for replies being generated (docs/decisions/070). On
 * SIGTERM (or SIGINT) remix-serve stops accepting connections; this instance
 * also stops taking new generations (POST /api/chat answers 503, so a proxy
 * or the browser's Retry goes to another instance), lets its running replies
 * finish within SHUTDOWN_GRACE_SECONDS, hands over those still going — they
 * are stored as interrupted with their partial text, which every reader sees
 * — and then exits.
 */

interface Draining {
  begin(): void;
  running(): { done: Promise<void>; stop(reason: "shutdown"): void }[];
}

let installed = false;

export function installShutdown(runs: Draining) {
  if (installed) return;
  installed = true;
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void drain(runs, signal));
}

async function drain(runs: Draining, signal: string) {
  runs.begin();
  const { graceMs } = runSettings();
  const running = runs.running();
  if (running.length > 0) log().info({ running: running.length, graceMs }, `${signal}: letting running replies finish`);
  const finished = Promise.all(running.map((run) => run.done)).then(() => true);
  if (!(await Promise.race([finished, sleep(graceMs).then(() => false)]))) {
    const left = runs.running();
    log().warn({ handedOver: left.length }, `${signal}: grace period over; storing running replies as interrupted`);
    for (const run of left) run.stop("shutdown");
    await Promise.race([Promise.all(left.map((run) => run.done)), sleep(5_000)]);
  }
  process.exit(0);
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
