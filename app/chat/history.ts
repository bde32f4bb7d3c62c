import type { ChatMessage } from "./message-types";
import { messageText } from "./message-types";

/**
 * What the model is sent: the stored conversation up to the message being
 * answered. The server's copy is the truth; the browser sends only the new
 * message, so a client cannot slip a forged history into the prompt.
 */
export type ExchangeKind = "submit" | "edit" | "regenerate";

export class HistoryError extends Error {}

/**
 * How to answer `user`: a message the conversation doesn't hold yet is a new
 * one (submit); the last message the user sent, with the same text, is
 * answered again (regenerate, or a Retry the server already stored), with new
 * text it is an edit. Earlier messages cannot be changed.
 */
export function historyForReply(
  stored: ChatMessage[],
  user: { id: string; text: string },
): { kind: ExchangeKind; history: ChatMessage[] } {
  const userMessage: ChatMessage = { id: user.id, role: "user", parts: [{ type: "text", text: user.text }] };
  const index = stored.findIndex((message) => message.id === user.id);
  if (index === -1) return { kind: "submit", history: [...stored, userMessage] };
  const lastUser = stored.findLastIndex((message) => message.role === "user");
  if (index !== lastUser) {
    throw new HistoryError("Only the last message you sent can be edited or answered again.");
  }
  const kind = messageText(stored[index]) === user.text ? "regenerate" : "edit";
  return { kind, history: [...stored.slice(0, index), kind === "edit" ? userMessage : stored[index]] };
}

/**
 * Keeps the most recent messages within a character budget (a rough stand-in
 * for the model's context window), always keeping the message being answered.
 */
export function trimHistory(history: ChatMessage[], maxCharacters: number): ChatMessage[] {
  let total = 0;
  let start = history.length;
  while (start > 0) {
    const size = JSON.stringify(history[start - 1].parts).length;
    if (start < history.length && total + size > maxCharacters) break;
    total += size;
    start -= 1;
  }
  // A history that opens with a reply confuses some models: start at a user's message.
  while (start < history.length - 1 && history[start].role !== "user") start += 1;
  return history.slice(start);
}
