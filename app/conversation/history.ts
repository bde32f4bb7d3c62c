import type { AttachmentRef } from "~/conversation/attachment-types";
import type { ChatMessage } from "./message-types";
import { branchPath } from "./branches";
import { messageText } from "./message-types";

/**
 * What the model is sent: the stored branch the message answers, root to
 * parent, then the message (docs/decisions/069). The server's copy is the
 * truth; the browser sends only the new message and the one it follows, so a
 * client cannot slip a forged history into the prompt, nor another branch.
 */
export type ExchangeKind = "submit" | "regenerate";

/** The request contradicts the stored conversation (409). */
export class HistoryError extends Error {}
/** The message the request says it follows is not one it can follow (400). */
export class ParentError extends Error {}

/**
 * How to answer `user`: a message the conversation doesn't hold yet is a new
 * one (submit) after `parentId` — a reply of any branch, null for a first
 * message, undefined for "after the branch shown"; a message the user sent
 * earlier, with the same text, is answered again (regenerate, or a Retry the
 * server already stored): a new version of its reply. A sent message is
 * never changed: an edit is a new message beside it.
 */
export function historyForReply(
  stored: ChatMessage[],
  user: { id: string; text: string; attachments?: AttachmentRef[] },
  parentId: string | null | undefined,
  leafId: string | null,
): { kind: ExchangeKind; parentId: string | null; history: ChatMessage[] } {
  const nodes = stored.map((message) => ({ message, id: message.id, parentId: message.metadata?.parentId ?? null }));
  const branch = (id: string | null) => (id ? branchPath(nodes, id).map((node) => node.message) : []);
  const existing = nodes.find((node) => node.id === user.id);
  if (existing) {
    if (existing.message.role !== "user")
      throw new HistoryError("This id belongs to a reply, not to a message you sent.");
    if (messageText(existing.message) !== user.text) {
      throw new HistoryError("A message you sent can't be changed. Send the edited text as a new message.");
    }
    if (parentId !== undefined && parentId !== existing.parentId) {
      throw new ParentError("This message doesn't follow the message the request names.");
    }
    return { kind: "regenerate", parentId: existing.parentId, history: branch(existing.id) };
  }
  let parent: string | null;
  if (parentId === undefined) {
    parent = stored.length === 0 ? null : branch(leafId).at(-1)!.id;
  } else {
    parent = parentId;
    const found = parentId === null ? undefined : nodes.find((node) => node.id === parentId);
    if (parentId !== null && !found)
      throw new ParentError("The message this one follows isn't part of this conversation.");
    if (found && found.message.role !== "assistant")
      throw new ParentError("A message you send follows a reply, not another message of yours.");
  }
  const userMessage: ChatMessage = { id: user.id, role: "user", parts: userParts(user.text, user.attachments) };
  return { kind: "submit", parentId: parent, history: [...branch(parent), userMessage] };
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

/** A user's message as stored and shown: its text, then the files sent with it. */
export function userParts(text: string, attachments: readonly AttachmentRef[] = []): ChatMessage["parts"] {
  return [{ type: "text", text }, ...attachments.map((data) => ({ type: "data-attachment" as const, data }))];
}
