import type { AttachmentRef } from "~/conversation/attachment-types";
import type { ChatRequest } from "~/conversation/chat-request";
import type { ChatDataParts, ChatMessage, SavedExchange } from "~/conversation/message-types";
import { messageText } from "~/conversation/message-types";
import { uuid } from "~/ids/uuid";
import { TOOL_PARAM } from "~/components/tools/chat-handoff";
import { PROJECT_PARAM } from "./project-link";
import { titleFromExchange } from "~/chat/title";
import { announceNewChat } from "./live-list";
import { StreamChat } from "./stream-chat";

/**
 * The browser's chats, one StreamChat per conversation, kept across route
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
  chat: StreamChat;
  /** Read each time a request is sent. */
  settings: {
    model: string;
    create: boolean;
    temporary?: boolean;
    /** The tools switched off for this chat in the composer's menu (app/components/chat/use-tool-choice.ts). */
    toolsOff: string[];
  };
  events: ChatEvents;
}

/** Idle chats beyond this many are forgotten (a busy one never is). */
const MAX_KEPT = 20;
const sessions = new Map<string, ChatSession>();

/**
 * The body for POST /api/chat: the last user message is the one to answer,
 * after the message shown before it (its parent in the message tree, ADR 069).
 */
export function chatRequestBody(
  conversationId: string,
  messages: ChatMessage[],
  settings: ChatSession["settings"],
  timeZone: string | undefined,
): ChatRequest {
  const index = messages.findLastIndex((message) => message.role === "user");
  const last = messages[index];
  if (!last) throw new Error("There is no message to send.");
  return {
    conversationId,
    parentId: parentOf(messages[index - 1]),
    create: settings.create,
    // Read by the server only when it creates the conversation (docs/decisions/085).
    ...(settings.create && settings.temporary ? { temporary: true } : {}),
    // A new chat opened from a prompt tool (/nuvara?tool=<id>): the server starts it with the tool's instructions.
    toolId: settings.create ? (newChatTool() ?? undefined) : undefined,
    // A new chat started in a project (/nuvara?project=<id>, docs/decisions/106); never a temporary one.
    ...(settings.create && !settings.temporary && newChatProject() ? { projectId: newChatProject()! } : {}),
    message: { id: last.id, role: "user", parts: [{ type: "text", text: messageText(last) }] },
    ...attachmentIds(last),
    model: settings.model,
    // The chat's whole choice each time: the server stores it with the exchange (a new chat's, too).
    toolsOff: settings.toolsOff,
    timeZone,
  };
}

/**
 * A first message follows nothing; any other follows the reply shown before
 * it when that reply is known to be stored (loaded, or confirmed saved: it
 * has a time). A reply stopped or failed in this tab may not be (yet): then
 * the server puts the message after the branch it shows.
 */
function parentOf(previous: ChatMessage | undefined): string | null | undefined {
  if (!previous) return null;
  return previous.role === "assistant" && previous.metadata?.createdAt ? previous.id : undefined;
}

/** The project a new chat is started in: the new-chat page's ?project=<id>. */
export function newChatProject(): string | null {
  if (typeof window === "undefined" || window.location.pathname !== "/nuvara") return null;
  return new URLSearchParams(window.location.search).get(PROJECT_PARAM);
}

function newChatTool(): string | null {
  if (typeof window === "undefined" || window.location.pathname !== "/nuvara") return null;
  return new URLSearchParams(window.location.search).get(TOOL_PARAM);
}

function browserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function createSession(id: string, messages: ChatMessage[], settings: ChatSession["settings"]): ChatSession {
  const session: ChatSession = { settings: { ...settings }, events: {}, chat: undefined as unknown as StreamChat };
  session.chat = new StreamChat({
    id,
    messages,
    generateId: uuid,
    api: "/api/chat",
    stopApi: "/api/runs/stop",
    runsApi: "/api/runs",
    body: (chatId, current) => {
      const body = chatRequestBody(chatId, current, session.settings, browserTimeZone());
      // Listed at once, before the server answers (docs/decisions/086); a temporary chat never is (ADR 085).
      if (body.create && !body.temporary)
        announceNewChat({
          id: chatId,
          title: titleFromExchange(messageText(body.message)),
          at: now(),
          projectId: body.projectId ?? null,
        });
      return body;
    },
    onData: (part) => {
      if (part.type === "data-conversation") {
        session.settings.create = false;
        session.events.onConversation?.((part.data as ChatDataParts["conversation"]).id);
      } else if (part.type === "data-saved") {
        session.events.onSaved?.(part.data as SavedExchange);
      }
    },
    // A new chat takes its address once its first reply is being written and shows something:
    // a reload then finds it and follows it (docs/decisions/070). It is stored only with that reply.
    onShownRun: ({ conversationId }) => {
      if (session.settings.create && conversationId === id) session.events.onConversation?.(id);
    },
    onFinish: ({ isAbort, isError }) => {
      session.events.onFinish?.({ isAbort, isError });
      // A new chat listed as it was sent: kept if the server stored it, gone if not (a refused or failed send).
      announceNewChat({ id, title: "", at: now(), ended: { stored: !session.settings.create || isAbort } });
      // Stopped before the server said it was stored: a new chat's conversation exists only once the
      // stopped exchange is stored (just after the Stop, docs/decisions/033); then it takes its URL.
      if (isAbort && session.settings.create) {
        void whenStored(id).then((stored) => {
          if (!stored || !session.settings.create) return;
          session.settings.create = false;
          session.events.onConversation?.(id);
        });
      }
    },
  });
  return session;
}

function now() {
  return new Date().toISOString();
}

/** Whether the conversation exists on the server, asked a few times while a stopped reply is being stored. */
async function whenStored(id: string, attempts = 10, intervalMs = 300): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    try {
      // The export's headers alone (HEAD): 200 once the conversation is stored, 404 before.
      const response = await fetch(`/api/conversations/${id}/markdown`, { method: "HEAD" });
      if (response.ok) return true;
      if (response.status !== 404) return false;
    } catch {
      return false;
    }
  }
  return false;
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

/** The files sent with a message, by id (none: no field, as before attachments existed). */
function attachmentIds(message: ChatMessage): { attachments?: string[] } {
  const ids = message.parts.flatMap((part) =>
    part.type === "data-attachment" ? [(part.data as AttachmentRef).id] : [],
  );
  return ids.length > 0 ? { attachments: ids } : {};
}
