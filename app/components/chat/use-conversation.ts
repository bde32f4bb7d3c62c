import { useEffect, useMemo } from "react";
import type { ChatMessage } from "~/conversation/message-types";
import type { ChatViewProps, RunningReply } from "./chat-view-types";
import { chatSession, type ChatSession } from "./chat-sessions";
import { storedBranch } from "./message-tree";
import { useStreamChat } from "./stream-chat";

type SetMessages = ReturnType<typeof useStreamChat>["setMessages"];

/**
 * This tab's chat for the conversation: the stored branch it opened with, its
 * session (kept across route changes, app/components/chat/chat-sessions.ts)
 * and the chat's live state (messages, status, error, and what changes them).
 */
export function useConversation(props: ChatViewProps) {
  const { chatId, isNew, models } = props;
  const initialModel = models.find((option) => option.id === props.model)?.id ?? models[0]?.id ?? "";
  const stored = props.initialMessages;
  const shownBranch = useMemo(() => storedBranch(stored, props.leafId), [stored, props.leafId]);
  const session = chatSession(chatId, shownBranch, {
    model: initialModel,
    create: isNew,
    temporary: Boolean(props.temporary),
    toolsOff: props.toolsOff ?? [],
  });
  const { messages, status, error, sendMessage, regenerate, stop, setMessages } = useStreamChat(session.chat);
  const busy = status === "submitted" || status === "streaming";
  return { stored, shownBranch, session, messages, status, error, sendMessage, regenerate, stop, setMessages, busy };
}

export type Conversation = ReturnType<typeof useConversation>;

/**
 * A reply being written (this tab was reloaded, or it was sent from another
 * tab or device): show the question and follow the reply from its start.
 */
export function useRunningReply(
  session: ChatSession,
  shownBranch: ChatMessage[],
  setMessages: SetMessages,
  running: RunningReply | null | undefined,
) {
  useEffect(() => {
    const chat = session.chat;
    if (!running || chat.status !== "ready") return;
    if (chat.messages.some((message) => message.id === running.runId)) return;
    setMessages(withQuestion(shownBranch, running.userMessage));
    void chat.attach(running.runId);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per reply being written
  }, [session, running?.runId]);
}

/**
 * Show what the server holds (e.g. returning to a conversation, or after a
 * reply is saved) — unless this tab is ahead of it: a reply streaming, a
 * failed send waiting for Retry, or an exchange the loaded data predates.
 */
export function useStoredMessages(
  session: ChatSession,
  isNew: boolean,
  stored: ChatMessage[],
  shownBranch: ChatMessage[],
  setMessages: SetMessages,
) {
  useEffect(() => {
    const chat = session.chat;
    if (isNew || chat.status !== "ready") return;
    const ids = new Set(stored.map((message) => message.id));
    if (chat.messages.every((message) => ids.has(message.id))) setMessages(shownBranch);
  }, [session, isNew, stored, shownBranch, setMessages]);
}

/** The branch shown, up to the message a running reply answers (added when it is not stored yet). */
function withQuestion(branch: ChatMessage[], question: RunningReply["userMessage"]): ChatMessage[] {
  const at = branch.findIndex((message) => message.id === question.id);
  if (at !== -1) return branch.slice(0, at + 1); // a regenerated reply: its question is stored
  let kept = branch;
  if (question.parentId === null) kept = [];
  else if (question.parentId) {
    const parent = branch.findIndex((message) => message.id === question.parentId);
    if (parent !== -1) kept = branch.slice(0, parent + 1);
  }
  return [...kept, { id: question.id, role: "user", parts: [{ type: "text", text: question.text }] }];
}
