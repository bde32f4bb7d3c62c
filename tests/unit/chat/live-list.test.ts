import { describe, expect, it } from "vitest";
import type { ConversationEvent, RunStartedEvent } from "~/chat/live/conversation-event";
import { parseConversationEvent } from "~/chat/live/conversation-event";
import { emptyLiveState, listIsStale, liveReducer, mergeLive, type LiveAction } from "~/components/chat/live-list";
import type { ConversationItem } from "~/components/chat/sidebar";

/** The live list (docs/decisions/086): what a tab heard, laid over the list it loaded. */

const row = (id: string, extra: Partial<ConversationItem> = {}): ConversationItem => ({
  id,
  title: `Chat ${id}`,
  updatedAt: "2026-11-27T08:00:00.000Z",
  ...extra,
});
const started = (conversationId: string, runId: string, extra: Partial<RunStartedEvent> = {}): RunStartedEvent => ({
  type: "run-started",
  conversationId,
  runId,
  created: false,
  title: null,
  at: "2026-11-27T09:00:00.000Z",
  ...extra,
});
const heard = (...events: ConversationEvent[]) =>
  events.reduce((state, event) => liveReducer(state, { type: "event", event }), emptyLiveState());
const act = (...actions: LiveAction[]) => actions.reduce(liveReducer, emptyLiveState());
const view = (rows: ConversationItem[], state = emptyLiveState(), search = "") =>
  mergeLive(rows, state, { filtered: search !== "" }).map((item) => [item.id, item.title, Boolean(item.writing)]);

describe("the live conversation list", () => {
  it("clears a mark when its run ends, even if the list was read before the end", () => {
    const rows = [row("a", { writing: true, runId: "r1" })];
    expect(view(rows)).toEqual([["a", "Chat a", true]]);
    const state = heard({ type: "run-ended", conversationId: "a", runId: "r1", status: "completed" });
    expect(view(rows, state)).toEqual([["a", "Chat a", false]]);
  });

  it("marks a chat whose run started elsewhere and moves it to the top", () => {
    const rows = [row("a"), row("b", { updatedAt: "2026-11-27T07:00:00.000Z" })];
    expect(view(rows, heard(started("b", "r2")))).toEqual([
      ["b", "Chat b", true],
      ["a", "Chat a", false],
    ]);
  });

  it("lists a new chat at once from this tab, and drops it if its send failed", () => {
    const sent = { id: "n", title: "Plan a trip", at: "2026-11-27T09:30:00.000Z" };
    const state = act({ type: "local", chat: sent });
    expect(view([row("a")], state)).toEqual([
      ["n", "Plan a trip", true],
      ["a", "Chat a", false],
    ]);
    const failed = liveReducer(state, { type: "local", chat: { ...sent, title: "", ended: { stored: false } } });
    expect(view([row("a")], failed)).toEqual([["a", "Chat a", false]]);
    const stored = liveReducer(state, { type: "local", chat: { ...sent, title: "", ended: { stored: true } } });
    expect(view([], stored)).toEqual([["n", "Plan a trip", false]]);
  });

  it("lists a new chat started in another tab; a failed first reply takes it away", () => {
    const state = heard(started("n", "r3", { created: true, title: "From elsewhere" }));
    expect(view([], state)).toEqual([["n", "From elsewhere", true]]);
    const failed = liveReducer(state, {
      type: "event",
      event: { type: "run-ended", conversationId: "n", runId: "r3", status: "failed" },
    });
    expect(view([], failed)).toEqual([]);
    // Nor does a list read while it ran bring it back.
    expect(view([row("n", { pending: true, writing: true, runId: "r3" })], failed)).toEqual([]);
  });

  it("shows titles as they stream, renames and deletions", () => {
    const state = heard(
      { type: "title", conversationId: "a", title: "Salty", generating: true },
      { type: "title", conversationId: "a", title: "Salty Seas", generating: false },
      { type: "deleted", conversationId: "b" },
    );
    expect(view([row("a"), row("b")], state)).toEqual([["a", "Salty Seas", false]]);
  });

  it("while searching, lists no chat heard of that the search did not find", () => {
    expect(view([], heard(started("n", "r4", { created: true })), "tides")).toEqual([]);
  });

  it("takes the snapshot of runs as the truth about marks loaded before the stream opened", () => {
    const rows = [row("a", { writing: true, runId: "gone" }), row("b", { writing: true, runId: "live" })];
    const state = heard({ type: "runs", runs: [started("b", "live")] });
    expect(view(rows, state)).toEqual([
      ["b", "Chat b", true],
      ["a", "Chat a", false],
    ]);
    expect(listIsStale(rows, new Set(["live"]))).toBe(true);
    expect(listIsStale([rows[1]], new Set(["live"]))).toBe(false);
  });

  it("accepts only well-formed events", () => {
    expect(parseConversationEvent('{"type":"deleted","conversationId":"a"}')).toEqual({
      type: "deleted",
      conversationId: "a",
    });
    expect(parseConversationEvent('{"type":"title","conversationId":"a"}')).toBeNull();
    expect(parseConversationEvent('{"type":"run-ended","conversationId":"a","runId":"r","status":"odd"}')).toBeNull();
    expect(parseConversationEvent("not json")).toBeNull();
  });
});
