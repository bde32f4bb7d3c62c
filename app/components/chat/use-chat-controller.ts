import { useCallback, useState } from "react";
import { describeChatError, type ShownError } from "~/chat/client-errors";
import type { ChatMessage } from "~/conversation/message-types";
import { readyFiles, useAttachmentUploads } from "./attachment-uploads";
import { useAssistantData } from "./assistant-data";
import type { ChatViewProps, ModelChoice, QuotaView } from "./chat-view-types";
import { focusComposer } from "./composer";
import { unsent, useDraft } from "./drafts";
import { useFollowLatest } from "./follow-latest";
import { useBrowserLayoutEffect } from "./use-browser-layout-effect";
import { useConversation, useRunningReply, useStoredMessages } from "./use-conversation";
import { useFileDrop } from "./use-file-drop";
import { useHydrated } from "./use-hydrated";
import { useMessageActions } from "./use-message-actions";
import { imageProblem, useModelChoice } from "./use-model-choice";
import { useReplyAnnouncement } from "./use-reply-announcement";
import { useSessionEvents } from "./use-session-events";
import { useToolChoice } from "./use-tool-choice";
import { useLeaveTemporaryChat } from "./use-temporary-chat";
import { useUnsentRestore } from "./use-unsent-restore";

/**
 * The chat page's state and what the user can do with it, for ChatView to lay out.
 * The effects run in the order the hooks are called here, and that order matters:
 * a message given back after a reload (useUnsentRestore) wins over the stored
 * draft (useDraft), and is looked for among the messages only once a running
 * reply's question has been put back (useRunningReply).
 */
export function useChatController(props: ChatViewProps) {
  const { chatId, isNew, models } = props;
  const conversation = useConversation(props);
  const { session, messages, status, error, busy } = conversation;
  const hydrated = useHydrated();
  const timeZone = hydrated ? undefined : "UTC";
  const unsentKey = isNew ? "new" : chatId;
  const composerKey = props.draftKey ?? chatId;
  const [draft, setDraft, moveDraftTo] = useDraft(composerKey);
  const modelChoice = useModelChoice(session, chatId, isNew, models);
  const toolChoice = useToolChoice(session, chatId, isNew);
  const uploads = useAttachmentUploads(composerKey, useAssistantData().attachmentLimits);
  const moveComposerTo = useMoveComposer(moveDraftTo, uploads.moveTo);
  const drop = useFileDrop(uploads.add);
  const [reporting, setReporting] = useState<string | null>(null);
  const follow = useFollowLatest();
  useFocusComposerOnOpen();
  useRunningReply(session, conversation.shownBranch, conversation.setMessages, props.running);
  useStoredMessages(session, isNew, conversation.stored, conversation.shownBranch, conversation.setMessages);
  const [restoredNotice, setRestoredNotice] = useUnsentRestore(unsentKey, session, draft, setDraft);
  const temporary = Boolean(props.temporary);
  useSessionEvents({ session, isNew, temporary, chatId, setMessages: conversation.setMessages, moveComposerTo });
  useLeaveTemporaryChat(chatId, temporary);
  const blockedReason = blockedReasonOf(models, props.quota);
  const announcement = useReplyAnnouncement(chatId, status, messages, Boolean(error));

  function send(text: string) {
    setRestoredNotice(false);
    unsent.remember(unsentKey, text);
    setDraft("");
    const attachments = readyFiles(uploads.files);
    uploads.clear();
    void conversation.sendMessage({ text, attachments });
    // One's own message is followed by its reply: back to the latest, and the cursor stays in the box.
    follow.jump();
    focusComposer();
  }

  function stopReply() {
    void conversation.stop();
    focusComposer();
  }

  // Escape in the message box or the transcript stops a streaming reply.
  function stopOnEscape() {
    if (busy) stopReply();
  }

  function retry() {
    void conversation.regenerate();
    focusComposer();
  }

  const actionsFor = useMessageActions({
    chatId,
    isNew,
    conversation,
    feedback: props.feedback,
    jumpToLatest: follow.jump,
    onReport: setReporting,
  });
  return {
    conversation,
    hydrated,
    timeZone,
    modelChoice,
    toolChoice,
    follow,
    drop,
    announcement,
    actionsFor,
    draft,
    setDraft,
    uploads,
    restoredNotice,
    blockedReason,
    send,
    stopReply,
    stopOnEscape,
    retry,
    fileProblem: imageProblem(modelChoice.chosenModel, models, uploads.files),
    shownError: error ? describeChatError(error, timeZone) : interruptedFailure(messages, busy),
    // Cut off when its server went away: the last reply can also go on where it stopped.
    continueReply: lastReplyInterrupted(messages, busy) && !blockedReason ? () => send(CONTINUE_PROMPT) : undefined,
    report: { messageId: reporting, close: () => setReporting(null) },
  };
}

/**
 * The message box has the cursor when a chat opens (also after the first
 * send, which moves the chat to its own URL) — unless the user is typing
 * somewhere else, e.g. searching, or is on a touch screen, where focus
 * would throw the keyboard over the page. Before the browser handles the
 * next key (a layout effect): this box may replace one the user is typing in.
 */
function useFocusComposerOnOpen() {
  useBrowserLayoutEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body && active.matches("input, textarea, select, [contenteditable]")) return;
    if (window.matchMedia("(pointer: coarse)").matches) return;
    focusComposer();
  }, []);
}

/** A new chat got its conversation id: what its composer holds, the text and the files, goes with it. */
function useMoveComposer(moveDraftTo: (id: string) => void, moveFilesTo: (id: string) => void) {
  return useCallback(
    (id: string) => {
      moveDraftTo(id);
      moveFilesTo(id);
    },
    [moveDraftTo, moveFilesTo],
  );
}

/** What Continue sends after an interrupted reply: the model sees its partial reply and goes on. */
const CONTINUE_PROMPT = "Please continue from where your last reply stopped.";

function lastReplyInterrupted(messages: ChatMessage[], busy: boolean): boolean {
  const last = messages.at(-1);
  return !busy && last?.role === "assistant" && last.metadata?.status === "interrupted";
}

/** A reply cut off by its server going away is a failure like any other: said once, under it, with Retry. */
function interruptedFailure(messages: ChatMessage[], busy: boolean): ShownError | null {
  if (!lastReplyInterrupted(messages, busy)) return null;
  const kept = messages.at(-1)!.parts.some((part) => part.type === "text" && part.text !== "");
  return {
    message: `The server writing this reply went away before it finished${kept ? "; what it wrote is kept" : ""}.`,
    quotaExhausted: false,
    signedOut: false,
  };
}

/** Why nothing can be sent: no model, the message quota or the budget spent (its fallback model, if any, still answers). */
function blockedReasonOf(models: ModelChoice[], quota: QuotaView): string | null {
  const exhausted = quota.remaining === 0;
  const budget = quota.budget;
  const budgetSpent = budget?.spent === true && !budget.fallback;
  return models.length === 0 ? "No model is available." : exhausted ? "quota" : budgetSpent ? "budget" : null;
}
