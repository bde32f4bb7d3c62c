/**
 * What the live conversation list hears (GET /api/conversations/events,
 * docs/decisions/086): the server sends these as server-sent events, the
 * sidebar merges them into the list it loaded
 * (app/components/chat/use-live-conversations.ts).
 */

/** A reply started being written: the chat shows "still writing…" (a new chat is listed from now on). */
export interface RunStartedEvent {
  type: "run-started";
  conversationId: string;
  runId: string;
  /** A new chat, stored only when its first reply ends: listed from the run until then. */
  created: boolean;
  title: string | null;
  /** ISO time the run started. */
  at: string;
}

export type ConversationEvent =
  | RunStartedEvent
  | {
      type: "run-ended";
      conversationId: string;
      runId: string;
      status: "completed" | "stopped" | "failed" | "interrupted";
    }
  /** A title generated (`generating`: streamed, more to come) or the user's rename. */
  | { type: "title"; conversationId: string; title: string; generating: boolean }
  | { type: "deleted"; conversationId: string }
  /** Sent first on every connection: the replies being written now (any other has ended). */
  | { type: "runs"; runs: RunStartedEvent[] }
  /** Events may have been missed (the server's listener reconnected): read the list again. */
  | { type: "resync" }
  /** The session ended (logout, revoked): the stream closes and is not opened again. */
  | { type: "signed-out" };

const RUN_STATUSES = new Set(["completed", "stopped", "failed", "interrupted"]);
const text = (value: unknown, max = 200): value is string => typeof value === "string" && value.length <= max;

function isRunStarted(value: Record<string, unknown>): boolean {
  return (
    value.type === "run-started" &&
    text(value.conversationId) &&
    text(value.runId) &&
    typeof value.created === "boolean" &&
    (value.title === null || text(value.title, 1_000)) &&
    text(value.at)
  );
}

/** The event in `data`, checked (anyone who can connect to the database can NOTIFY); null when it is none. */
export function parseConversationEvent(data: string): ConversationEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object") return null;
  const event = value as Record<string, unknown>;
  switch (event.type) {
    case "run-started":
      return isRunStarted(event) ? (event as unknown as ConversationEvent) : null;
    case "run-ended":
      return text(event.conversationId) && text(event.runId) && RUN_STATUSES.has(String(event.status))
        ? (event as unknown as ConversationEvent)
        : null;
    case "title":
      return text(event.conversationId) && text(event.title, 1_000) && typeof event.generating === "boolean"
        ? (event as unknown as ConversationEvent)
        : null;
    case "deleted":
      return text(event.conversationId) ? (event as unknown as ConversationEvent) : null;
    case "runs":
      return Array.isArray(event.runs) && event.runs.every((run) => run && typeof run === "object" && isRunStarted(run))
        ? (event as unknown as ConversationEvent)
        : null;
    case "resync":
    case "signed-out":
      return { type: event.type };
    default:
      return null;
  }
}
