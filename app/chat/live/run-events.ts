import type { RunStartedEvent } from "./conversation-event";

/** A reply run as the list hears of it (app/chat/runs/run-store.server.ts's RunRow, or a run starting). */
interface RunLike {
  id: string;
  conversationId: string;
  startedAt: Date | string;
  exchange: { title: string; create?: { title: string | null } | null };
}

export function runStarted(run: RunLike): RunStartedEvent {
  return {
    type: "run-started",
    conversationId: run.conversationId,
    runId: run.id,
    created: Boolean(run.exchange.create),
    title: run.exchange.create?.title ?? run.exchange.title ?? null,
    at: new Date(run.startedAt).toISOString(),
  };
}
