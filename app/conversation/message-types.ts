import type { UIMessage } from "ai";
import type { AttachmentRef, ReplySources } from "~/conversation/attachment-types";
import type { BudgetView } from "~/budgets/budget-text";
import type { ToolApprovalView, ToolProgressView } from "./tool-approval";
import type { ToolElicitationView } from "./tool-elicitation";

/**
 * The messages the chat page and the chat endpoint exchange: AI SDK UI
 * messages with Nuvara's metadata and data parts. Shared by server and browser.
 */

export type ReplyStatus = "completed" | "stopped" | "interrupted";

export interface MessageMetadata {
  /** Model id that wrote a reply. */
  model?: string;
  /** The model is the built-in demo, not an AI. */
  demo?: boolean;
  /** A budget was spent: the role's fallback model wrote this reply (docs/decisions/072). */
  fallback?: boolean;
  status?: ReplyStatus;
  /** ISO time the message was stored. */
  createdAt?: string;
  /** The stored message this one follows (null for a first message; docs/decisions/069). */
  parentId?: string | null;
}

/** What the endpoint confirms once an exchange is stored. */
export interface SavedExchange {
  conversationId: string;
  userMessageId: string;
  replyId: string;
  status: ReplyStatus;
  title: string | null;
  /** Messages left today; null when unlimited. */
  remaining: number | null;
  /** The tightest budget after this reply; null: the role has none; absent: unchanged. */
  budget?: BudgetView | null;
}

export type ChatDataParts = {
  /** First chunk of every reply: the run writing it, which any tab can follow (docs/decisions/070). */
  run: { runId: string; conversationId: string };
  /** Once the exchange is stored: the conversation exists on the server from now on. */
  conversation: { id: string };
  saved: SavedExchange;
  /** A file sent with the user's message (docs/decisions/071). */
  attachment: AttachmentRef;
  /** A file an imported message had whose content its export did not hold (docs/decisions/104). */
  "missing-attachment": { name: string };
  /** What a reply was given to answer from (attached documents' passages, pages found on the web): its Sources. */
  sources: ReplySources;
  /** A server's tool waiting for a person's approval, and then what they decided (docs/decisions/091). */
  approval: ToolApprovalView;
  /** A server's request for input while its tool runs, and then how it was answered (docs/decisions/095). */
  elicitation: ToolElicitationView;
  /** How far a server's tool has got, as it reports while it runs (replaced in place, keyed by the call). */
  "tool-progress": ToolProgressView;
  /** The memories a reply was given from earlier chats (docs/decisions/103): "Used N memories". */
  memories: { memories: Array<{ id: string; text: string }> };
};

export type ChatMessage = UIMessage<MessageMetadata, ChatDataParts>;

/** The plain text of a message's text parts, e.g. for copying, search and export. */
export function messageText(message: Pick<ChatMessage, "parts">): string {
  return message.parts
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("\n\n")
    .trim();
}
