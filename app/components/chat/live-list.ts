import type { ConversationEvent, RunStartedEvent } from "~/chat/live/conversation-event";
import type { ConversationItem } from "./conversation-item";

/**
 * The live conversation list's state (docs/decisions/086): what this tab has
 * heard since the list was loaded — from the server's event stream, and from
 * its own chats (a new chat is listed the moment it is sent, before the
 * server has answered) — and how it is laid over the loaded list.
 */

export interface LocalNewChat {
  id: string;
  title: string;
  /** ISO time it was sent. */
  at: string;
  /** The project it was started in (docs/decisions/106): listed under it at once. */
  projectId?: string | null;
  /** Its send ended in this tab: `stored` says whether the server kept the chat. */
  ended?: { stored: boolean };
}

export interface LiveState {
  /** The latest run heard of per conversation. */
  started: Map<string, RunStartedEvent>;
  /** Runs heard to have ended, with how. */
  ended: Map<string, string>;
  /** The runs being written when the stream (re)connected; null before the first connection. */
  snapshot: Set<string> | null;
  titles: Map<string, string>;
  deleted: Set<string>;
  /** New chats sent from this tab, by id. */
  local: Map<string, LocalNewChat>;
}

export function emptyLiveState(): LiveState {
  return {
    started: new Map(),
    ended: new Map(),
    snapshot: null,
    titles: new Map(),
    deleted: new Set(),
    local: new Map(),
  };
}

export type LiveAction =
  | { type: "event"; event: ConversationEvent }
  | { type: "local"; chat: LocalNewChat }
  /** Connected again after a break: what was heard before may be stale (the list is read again). */
  | { type: "reconnected" };

export function liveReducer(state: LiveState, action: LiveAction): LiveState {
  if (action.type === "local") {
    const known = state.local.get(action.chat.id);
    // The end of a send is news only for a chat this tab listed as new.
    if (action.chat.ended && !known) return state;
    const chat = known && action.chat.ended ? { ...known, ended: action.chat.ended } : action.chat;
    return { ...state, local: new Map(state.local).set(chat.id, chat) };
  }
  if (action.type === "reconnected") return { ...state, titles: new Map(), deleted: new Set() };
  const { event } = action;
  switch (event.type) {
    case "run-started":
      return { ...state, started: new Map(state.started).set(event.conversationId, event) };
    case "run-ended":
      return { ...state, ended: new Map(state.ended).set(event.runId, event.status) };
    case "title":
      return { ...state, titles: new Map(state.titles).set(event.conversationId, event.title) };
    case "deleted":
      return { ...state, deleted: new Set(state.deleted).add(event.conversationId) };
    case "runs": {
      const started = new Map(state.started);
      for (const run of event.runs) started.set(run.conversationId, run);
      return { ...state, started, snapshot: new Set(event.runs.map((run) => run.runId)) };
    }
    default:
      return state;
  }
}

/** The loaded list with what was heard since laid over it, most recently active first. */
export function mergeLive(rows: readonly ConversationItem[], state: LiveState, { filtered }: { filtered: boolean }) {
  const isRunning = (runId: string) =>
    !state.ended.has(runId) && (state.snapshot === null || state.snapshot.has(runId) || heardStart(state, runId));
  const listed = new Set(rows.map((row) => row.id));
  const merged: ConversationItem[] = [];
  for (const row of rows) {
    if (state.deleted.has(row.id)) continue;
    // Listed while its first reply was written, which failed: it was never stored.
    if (row.pending && row.runId && state.ended.get(row.runId) === "failed") continue;
    const run = state.started.get(row.id);
    const local = state.local.get(row.id);
    const writing =
      (row.writing && (!row.runId || isRunning(row.runId))) ||
      (run !== undefined && isRunning(run.runId)) ||
      (local !== undefined && !local.ended && !run);
    const updatedAt = latest(row.updatedAt, run?.at);
    merged.push(withMark({ ...row, title: state.titles.get(row.id) ?? row.title, updatedAt }, writing));
  }
  // A search or the archived view lists what matches it: chats heard of meanwhile wait for the next read.
  if (!filtered) {
    for (const run of state.started.values()) {
      if (!run.created || listed.has(run.conversationId) || state.deleted.has(run.conversationId)) continue;
      if (state.ended.get(run.runId) === "failed") continue; // a first reply that failed stores nothing
      listed.add(run.conversationId);
      merged.push(
        newChatRow(run.conversationId, state.titles.get(run.conversationId) ?? run.title, run.at, isRunning(run.runId)),
      );
    }
    for (const chat of state.local.values()) {
      if (listed.has(chat.id) || state.deleted.has(chat.id) || chat.ended?.stored === false) continue;
      merged.push({
        ...newChatRow(chat.id, state.titles.get(chat.id) ?? chat.title, chat.at, !chat.ended),
        projectId: chat.projectId ?? null,
      });
    }
  }
  return merged.sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
}

/** Whether the loaded list says a reply is being written that the stream says is not: the list is stale. */
export function listIsStale(rows: readonly ConversationItem[], snapshot: ReadonlySet<string>): boolean {
  return rows.some((row) => row.writing && row.runId !== undefined && !snapshot.has(row.runId));
}

function heardStart(state: LiveState, runId: string): boolean {
  for (const run of state.started.values()) if (run.runId === runId) return true;
  return false;
}

function newChatRow(id: string, title: string | null, at: string, writing: boolean): ConversationItem {
  return withMark({ id, title, updatedAt: at, pending: true }, writing);
}

function withMark(row: ConversationItem, writing: boolean): ConversationItem {
  const { writing: _was, ...rest } = row;
  return writing ? { ...rest, writing: true } : rest;
}

function latest(a: string, b: string | undefined): string {
  return b !== undefined && Date.parse(b) > Date.parse(a) ? b : a;
}

// ---- this tab's new chats --------------------------------------------------------

const localListeners = new Set<(chat: LocalNewChat) => void>();

/** Called by a new chat as its first message is sent, and when that send ends (app/components/chat/chat-sessions.ts). */
export function announceNewChat(chat: LocalNewChat) {
  for (const listener of localListeners) listener(chat);
}

export function onNewChat(listener: (chat: LocalNewChat) => void): () => void {
  localListeners.add(listener);
  return () => void localListeners.delete(listener);
}
