import { useLocation, useRevalidator } from "@remix-run/react";
import { useEffect, useMemo, useReducer, useRef, useState } from "react";
import { parseConversationEvent, type ConversationEvent } from "~/chat/live/conversation-event";
import { emptyLiveState, listIsStale, liveReducer, mergeLive, onNewChat } from "./live-list";
import type { ConversationItem } from "./sidebar";

/**
 * The conversation list, live (docs/decisions/086): the loaded list, with
 * what the user's event stream (GET /api/conversations/events) and this tab's
 * own new chats have said since. A new chat is listed and selected as it is
 * sent; "still writing…" goes when its run ends, whichever tab or device
 * started it. The stream is opened again after a break, waiting longer each
 * time (up to MAX_BACKOFF_MS), and the list is then read again (events may
 * have been missed); it stays closed once the session has ended.
 */

export const EVENTS_URL = "/api/conversations/events";
const MAX_BACKOFF_MS = 30_000;

export function useLiveConversations(
  rows: readonly ConversationItem[],
  { filtered, activeId }: { filtered: boolean; activeId: string | null },
): { conversations: ConversationItem[]; activeId: string | null } {
  const [state, dispatch] = useReducer(liveReducer, undefined, emptyLiveState);
  const { revalidate } = useRevalidator();
  const revalidateRef = useRef(revalidate);
  revalidateRef.current = revalidate;
  const location = useLocation();
  // The new chat sent from this page: selected while the page still shows it (before it has its own address).
  const [sentHere, setSentHere] = useState<{ id: string; key: string } | null>(null);
  const locationKey = useRef(location.key);
  locationKey.current = location.key;

  useEffect(
    () =>
      onNewChat((chat) => {
        dispatch({ type: "local", chat });
        if (!chat.ended) setSentHere({ id: chat.id, key: locationKey.current });
      }),
    [],
  );

  const listed = useRef(rows);
  listed.current = rows;

  useEffect(() => {
    const stop = new AbortController();
    void followEvents(stop.signal, {
      onEvent(event) {
        dispatch({ type: "event", event });
        if (event.type === "resync") revalidateRef.current();
        // Runs that ended before the stream opened: whether their chats were stored, the server's list says.
        if (event.type === "runs" && listIsStale(listed.current, new Set(event.runs.map((run) => run.runId))))
          revalidateRef.current();
        // A new chat stored elsewhere gets its row's actions (rename, delete) from the server's list.
        if (event.type === "run-ended" && event.status !== "failed" && !isStored(listed.current, event.conversationId))
          revalidateRef.current();
      },
      onReconnect() {
        dispatch({ type: "reconnected" });
        revalidateRef.current();
      },
    });
    return () => stop.abort();
  }, []);

  const conversations = useMemo(() => mergeLive(rows, state, { filtered }), [rows, state, filtered]);
  const selected =
    activeId ?? (sentHere && sentHere.key === location.key && location.pathname === "/nuvara" ? sentHere.id : null);
  return { conversations, activeId: selected };
}

function isStored(rows: readonly ConversationItem[], id: string): boolean {
  return rows.some((row) => row.id === id && !row.pending);
}

/**
 * Reads the event stream until `signal` aborts or the session ends, opening it
 * again after each break with a growing, jittered wait.
 */
async function followEvents(
  signal: AbortSignal,
  handlers: { onEvent(event: ConversationEvent): void; onReconnect(): void },
) {
  let failures = 0;
  let connectedBefore = false;
  while (!signal.aborted) {
    const outcome = await readEvents(signal, handlers.onEvent, () => {
      if (connectedBefore) handlers.onReconnect();
      connectedBefore = true;
      failures = 0;
    });
    if (outcome === "ended" || signal.aborted) return;
    const wait = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** Math.min(failures, 5)) * (0.5 + Math.random() / 2);
    failures += 1;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}

/** One connection: "ended" when the session is over (no point in coming back), "broken" otherwise. */
async function readEvents(
  signal: AbortSignal,
  onEvent: (event: ConversationEvent) => void,
  onOpen: () => void,
): Promise<"ended" | "broken"> {
  try {
    const response = await fetch(EVENTS_URL, { signal, headers: { Accept: "text/event-stream" } });
    if (response.status === 401 || response.status === 403) return "ended";
    if (!response.ok || !response.body) return "broken";
    onOpen();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return "broken";
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data: "))
          .map((line) => line.slice("data: ".length))
          .join("\n");
        const event = data ? parseConversationEvent(data) : null;
        if (!event) continue;
        if (event.type === "signed-out") return "ended";
        onEvent(event);
      }
    }
  } catch {
    return "broken";
  }
}
