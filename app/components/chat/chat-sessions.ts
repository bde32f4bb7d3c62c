import { Chat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import type { ChatRequest } from "~/chat/chat-request";
import type { ChatMessage, SavedExchange } from "~/chat/message-types";
import { messageText } from "~/chat/message-types";
import { uuid } from "~/chat/uuid";

/**
 * The browser's chats, one AI SDK Chat per conversation, kept across route
 * changes: a new chat moves from /nuvara to /nuvara/<id> while its first
 * reply streams, and a reply keeps streaming while the user looks at another
 * conversation. Only the view showing a chat listens to its events.
 */

export interface ChatEvents {
  /** The server holds the conversation from now on. */
  onConversation?(id: string): void;
  onSaved?(saved: SavedExchange): void;
  onFinish?(outcome: { isAbort: boolean; isError: boolean }): void;
}

export interface ChatSession {
  chat: Chat<ChatMessage>;
  /** Read each time a request is sent. */
  settings: { model: string; create: boolean };
  events: ChatEvents;
}

/** Idle chats beyond this many are forgotten (a busy one never is). */
const MAX_KEPT = 20;
const sessions = new Map<string, ChatSession>();

/** The body for POST /api/chat: the last user message is the one to answer. */
export function chatRequestBody(
  conversationId: string,
  messages: ChatMessage[],
  settings: ChatSession["settings"],
  timeZone: string | undefined,
): ChatRequest {
  const last = messages.findLast((message) => message.role === "user");
  if (!last) throw new Error("There is no message to send.");
  return {
    conversationId,
    create: settings.create,
    message: { id: last.id, role: "user", parts: [{ type: "text", text: messageText(last) }] },
    model: settings.model,
    timeZone,
  };
}

function browserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function createSession(id: string, messages: ChatMessage[], settings: ChatSession["settings"]): ChatSession {
  const session: ChatSession = { settings: { ...settings }, events: {}, chat: undefined as unknown as Chat<ChatMessage> };
  session.chat = new Chat<ChatMessage>({
    id,
    messages,
    generateId: uuid,
    transport: new DefaultChatTransport<ChatMessage>({
      api: "/api/chat",
      prepareSendMessagesRequest: ({ id: chatId, messages: current }) => ({
        body: chatRequestBody(chatId, current, session.settings, browserTimeZone()),
      }),
    }),
    onData: (part) => {
      if (part.type === "data-conversation") {
        session.settings.create = false;
        session.events.onConversation?.(part.data.id);
      } else if (part.type === "data-saved") {
        session.events.onSaved?.(part.data);
      }
    },
    onFinish: ({ isAbort, isError }) => session.events.onFinish?.({ isAbort, isError }),
  });
  return session;
}

function isBusy(session: ChatSession): boolean {
  return session.chat.status === "submitted" || session.chat.status === "streaming";
}

/**
 * The chat for a conversation, created with `messages` and `settings` the
 * first time. On the server every render gets its own (nothing is shared
 * between requests, or users).
 */
export function chatSession(id: string, messages: ChatMessage[], settings: ChatSession["settings"]): ChatSession {
  if (typeof document === "undefined") return createSession(id, messages, settings);
  let session = sessions.get(id);
  if (session) {
    sessions.delete(id); // most recently used goes last
  } else {
    session = createSession(id, messages, settings);
  }
  sessions.set(id, session);
  for (const [key, candidate] of sessions) {
    if (sessions.size <= MAX_KEPT) break;
    if (key !== id && !isBusy(candidate)) sessions.delete(key);
  }
  return session;
}

/** Drops a deleted conversation's chat, stopping a reply in progress. */
export function forgetChat(id: string) {
  const session = sessions.get(id);
  if (!session) return;
  sessions.delete(id);
  void session.chat.stop();
}
