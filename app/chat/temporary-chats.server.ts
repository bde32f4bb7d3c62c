import type { Db } from "~/db/client.server";
import { sweepTemporaryConversations } from "~/data/conversations.server";
import { logBackendFault } from "~/deadline.server";
import { log } from "~/log/logger.server";
import { now } from "~/time/clock.server";

/**
 * Temporary chats left without a word (a crashed tab, a lost network): the
 * page deletes its own when left, and this sweep deletes any older than
 * TEMPORARY_CHAT_HOURS (docs/decisions/085). Every instance serving the
 * assistant runs it; deleting twice is harmless.
 */

const SWEEP_EVERY_MS = 10 * 60_000;
let sweeper: NodeJS.Timeout | undefined;

export function ensureTemporarySweeper(db: Db) {
  if (sweeper) return;
  sweeper = setInterval(() => void sweepTemporaryChats(db), SWEEP_EVERY_MS);
  sweeper.unref();
}

/** One sweep, on the app's clock (tests move it: tests/support/clock.ts); how many chats it deleted. */
export async function sweepTemporaryChats(db: Db): Promise<number> {
  try {
    const deleted = await sweepTemporaryConversations(db, now());
    if (deleted > 0) log().info({ deleted }, "deleted temporary chats left behind");
    return deleted;
  } catch (error) {
    logBackendFault("postgres", "deleting temporary chats left behind", error);
    return 0;
  }
}
