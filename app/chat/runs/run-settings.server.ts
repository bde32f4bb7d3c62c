import os from "node:os";
import { getConfig } from "~/config.server";
import { noticesArePolled } from "~/db/notices.server";

/** This process, as named in the runs it owns (reply_runs.instance). */
export const INSTANCE_ID = `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;

export function runSettings() {
  const { runLeaseSeconds, shutdownGraceMs } = getConfig();
  // NOTIFY is how other instances hear of new chunks at once (a poll is the fallback). Where
  // nothing listens (a transaction pooler without a direct URL) they watch the runs' rows instead.
  return { leaseSeconds: runLeaseSeconds, graceMs: shutdownGraceMs, notify: !noticesArePolled() };
}
