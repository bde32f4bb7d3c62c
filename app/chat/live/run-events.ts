import type { RunStartedEvent } from "./conversation-event";

/** A reply run as the list hears of it (app/chat/runs/run-store.server.ts's RunRow, or a run starting). */
interface RunLike {
  id: string;
  conversationId: string;
  startedAt: Date | string;
  exchange: { title: string; create?: { title: string | null; temporary?: boolean } | null };
}

export function runStarted(run: RunLike): RunStartedEvent {
  return {
    type: "run-started",
    conversationId: run.conversationId,
    runId: run.id,
    // A temporary chat is never listed (docs/decisions/085): its run is news only for the chat itself.
    created: Boolean(run.exchange.create) && !run.exchange.create?.temporary,
    title: run.exchange.create?.title ?? run.exchange.title ?? null,
    at: new Date(run.startedAt).toISOString(),
  };
}
