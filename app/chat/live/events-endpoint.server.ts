import { json } from "@remix-run/node";
import { getSessionUser } from "~/auth/session.server";
import { logBackendFault } from "~/deadline.server";
import { apiDatabase, apiSignedIn } from "~/http/api-session.server";
import { runningRuns, type RunRow } from "../runs/run-store.server";
import type { ConversationEvent } from "./conversation-event";
import { runStarted } from "./run-events";
import { subscribeToConversations } from "./conversation-events.server";

/**
 * GET /api/conversations/events: the signed-in user's conversation events as
 * server-sent events (docs/decisions/086). First the replies being written
 * now, then each event as it happens. Idle, it costs a timer: every
 * CHECK_MS a comment keeps proxies from closing it, and the session is
 * checked again (from the auth cache, which a logout or revocation on any
 * instance empties at once, app/auth/invalidation.server.ts) — once it has
 * ended, the stream says so and closes.
 *
 *   401 not signed in · 503 a store is unreachable
 */

export const CHECK_MS = 15_000;

/** The streams open here, closed on SIGTERM: remix-serve waits for open connections before it exits. */
const open = new Set<() => void>();
let closesOnShutdown = false;

function closeOnShutdown(close: () => void): () => void {
  if (!closesOnShutdown) {
    closesOnShutdown = true;
    // The lists reconnect (to another instance) and read the list again.
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => open.forEach((end) => end()));
  }
  open.add(close);
  return () => void open.delete(close);
}

export async function conversationEventsResponse(request: Request, { checkMs = CHECK_MS } = {}): Promise<Response> {
  const who = await apiSignedIn(request);
  if (who instanceof Response) return who;
  const db = await apiDatabase("the conversation list", unavailable);
  if (db instanceof Response) return db;
  const uid = who.user.uid;
  // Listening before the snapshot is read: a run that starts in between is heard, not lost.
  const early: ConversationEvent[] = [];
  let send: (event: ConversationEvent) => void = (event) => void early.push(event);
  const unsubscribe = subscribeToConversations(uid, (event) => send(event));
  let running: RunRow[];
  try {
    running = await runningRuns(db, uid);
  } catch (error) {
    unsubscribe();
    logBackendFault("postgres", "listing replies being written", error);
    return unavailable();
  }
  const encoder = new TextEncoder();
  let cleanup: () => void = unsubscribe;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const write = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      send = (event) => write(`data: ${JSON.stringify(event)}\n\n`);
      const close = () => {
        if (closed) return;
        closed = true;
        cleanup();
        controller.close();
      };
      const timer = setInterval(() => void checkSession(), checkMs);
      timer.unref();
      const forget = closeOnShutdown(close);
      cleanup = () => {
        clearInterval(timer);
        forget();
        unsubscribe();
        request.signal.removeEventListener("abort", close);
      };
      async function checkSession() {
        write(": still here\n\n");
        // A fresh Request each time: getSessionUser keeps one answer per request.
        const state = await getSessionUser(new Request(request.url, { headers: request.headers }), { fresh: false });
        if (state.status === "signed-in" || state.degraded) return; // a store that cannot say signs no one out
        send({ type: "signed-out" });
        close();
      }
      request.signal.addEventListener("abort", close, { once: true });
      if (request.signal.aborted) return close();
      send({ type: "runs", runs: running.map(runStarted) });
      for (const event of early) send(event);
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}

const unavailable = () =>
  json({ error: "Conversations can't be reached right now. Please try again shortly." }, { status: 503 });
