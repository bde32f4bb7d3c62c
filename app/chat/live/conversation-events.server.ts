import type { Db } from "~/db/client.server";
import {
  CONVERSATIONS_NOTICE_CHANNEL,
  hearsOwnNotices,
  onNotice,
  onNoticesMissed,
  publishNotice,
} from "~/db/notices.server";
import { logBackendFault } from "~/deadline.server";
import { parseConversationEvent, type ConversationEvent } from "./conversation-event";

/**
 * Each user's conversation events (docs/decisions/086), to every open tab of
 * theirs on every instance: a publisher NOTIFYs them on one channel, every
 * instance's one listening connection (app/db/notices.server.ts) hands them
 * to the streams open on it. A stream holds no database connection: it is a
 * callback in this map. Where this process does not hear its own NOTIFYs
 * (PGlite in local mode, a listener reconnecting, notices polled behind a
 * transaction pooler: docs/decisions/097) the publisher delivers to its own
 * process's streams itself.
 */

type Subscriber = (event: ConversationEvent) => void;

const subscribers = new Map<string, Set<Subscriber>>();

/** Calls `subscriber` with each of the user's events until the returned function is called. */
export function subscribeToConversations(uid: string, subscriber: Subscriber): () => void {
  let set = subscribers.get(uid);
  if (!set) subscribers.set(uid, (set = new Set()));
  set.add(subscriber);
  return () => {
    set.delete(subscriber);
    if (set.size === 0 && subscribers.get(uid) === set) subscribers.delete(uid);
  };
}

/** How many streams this process serves (for tests: one closed stream leaves none behind). */
export function conversationSubscriberCount(): number {
  let count = 0;
  for (const set of subscribers.values()) count += set.size;
  return count;
}

function deliver(uid: string, event: ConversationEvent) {
  for (const subscriber of subscribers.get(uid) ?? []) {
    try {
      subscriber(event);
    } catch {
      // A stream that cannot take it has closed; its cleanup removes it.
    }
  }
}

/**
 * Tells every open tab of the user. Never throws: what happened has happened,
 * and a lost event costs only freshness (a tab reads the list again on reconnect).
 */
export async function publishConversationEvent(db: Db, uid: string, event: ConversationEvent): Promise<void> {
  if (!hearsOwnNotices()) deliver(uid, event);
  try {
    await publishNotice(db.$client, CONVERSATIONS_NOTICE_CHANNEL, JSON.stringify({ uid, event }));
  } catch (error) {
    logBackendFault("postgres", "publishing a conversation event", error);
  }
}

function parseNotice(payload: string): { uid: string; event: ConversationEvent } | null {
  try {
    const value = JSON.parse(payload) as { uid?: unknown; event?: unknown };
    if (typeof value.uid !== "string" || value.uid.length > 200) return null;
    const event = parseConversationEvent(JSON.stringify(value.event));
    return event ? { uid: value.uid, event } : null;
  } catch {
    return null;
  }
}

onNotice(CONVERSATIONS_NOTICE_CHANNEL, (payload) => {
  const notice = parseNotice(payload);
  if (notice) deliver(notice.uid, notice.event);
});

// The listener was away: every open list may have missed something.
onNoticesMissed(() => {
  for (const set of subscribers.values()) for (const subscriber of set) subscriber({ type: "resync" });
});
