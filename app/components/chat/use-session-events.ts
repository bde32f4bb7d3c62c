import { useNavigate, useRevalidator } from "@remix-run/react";
import { useEffect } from "react";
import type { ChatMessage, SavedExchange } from "~/conversation/message-types";
import type { ChatSession } from "./chat-sessions";
import { unsent } from "./drafts";
import type { Conversation } from "./use-conversation";

type SetMessages = Conversation["setMessages"];

/**
 * What this view does when its chat reports (app/components/chat/chat-sessions.ts):
 * only the view showing a chat listens, so the listeners go when it does.
 */
export function useSessionEvents({
  session,
  isNew,
  temporary,
  chatId,
  setMessages,
  moveComposerTo,
}: {
  session: ChatSession;
  isNew: boolean;
  /** A temporary chat keeps the new-chat page's address: it is gone once left (docs/decisions/085). */
  temporary: boolean;
  chatId: string;
  setMessages: SetMessages;
  /** Takes the composer's draft and files to the conversation's id (app/components/chat/use-chat-controller.ts). */
  moveComposerTo: (id: string) => void;
}) {
  const navigate = useNavigate();
  const revalidator = useRevalidator();
  useEffect(() => {
    session.events = {
      onConversation(id) {
        if (!isNew || temporary) return;
        // The conversation exists now: give it its own URL (same chat, no reload).
        unsent.move("new", id);
        moveComposerTo(id);
        navigate(`/nuvara/${id}`, { replace: true, preventScrollReset: true });
      },
      onSaved(saved) {
        unsent.clear(saved.conversationId);
        setMessages((current) => withSavedReply(current, saved));
        revalidator.revalidate();
      },
      onFinish({ isAbort }) {
        if (!isAbort) return;
        // Stopped: the server keeps the partial reply, marked stopped.
        unsent.clear(chatId);
        setMessages(withLastReplyStopped);
        setTimeout(() => revalidator.revalidate(), 300);
      },
    };
    return () => {
      session.events = {};
    };
  }, [session, isNew, temporary, chatId, navigate, revalidator, setMessages, moveComposerTo]);
}

/** The saved reply with its stored status and a time (which marks it as stored, app/components/chat/chat-sessions.ts). */
function withSavedReply(current: ChatMessage[], saved: SavedExchange): ChatMessage[] {
  return current.map((message) =>
    message.id === saved.replyId
      ? {
          ...message,
          metadata: {
            ...message.metadata,
            status: saved.status,
            createdAt: new Date().toISOString(),
          },
        }
      : message,
  );
}

function withLastReplyStopped(current: ChatMessage[]): ChatMessage[] {
  const last = current[current.length - 1];
  if (last?.role !== "assistant") return current;
  return [...current.slice(0, -1), { ...last, metadata: { ...last.metadata, status: "stopped" } }];
}
