import { useFetcher } from "@remix-run/react";
import { useMemo } from "react";
import { branchPath, latestLeaf, versionsOf } from "~/conversation/branches";
import type { ChatMessage } from "~/conversation/message-types";
import type { MessageActions } from "./chat-message";
import { focusComposer } from "./composer";
import { messageTree } from "./message-tree";
import type { Conversation } from "./use-conversation";

const PREVIOUS_VERSION = "Previous version";
/** While a reply streams no message offers anything: one object, so unchanged messages skip rendering. */
const NO_ACTIONS: MessageActions = {};
const NEXT_VERSION = "Next version";

type Tree = ReturnType<typeof messageTree>;

interface Options {
  chatId: string;
  isNew: boolean;
  conversation: Conversation;
  /** The owner's 👍/👎 by reply id. */
  feedback: Record<string, 1 | -1> | undefined;
  jumpToLatest: () => void;
  onReport: (messageId: string) => void;
}

/** The buttons each message of the transcript offers (none while a reply streams): versions, edit, regenerate, continue, report, feedback. */
export function useMessageActions(options: Options): (message: ChatMessage, index: number) => MessageActions {
  const { chatId, isNew, conversation } = options;
  const { stored, messages, setMessages } = conversation;
  const branchFetcher = useFetcher();
  const tree = useMemo(() => messageTree(stored, messages), [stored, messages]);

  /** Shows another version of the message at `index`, with its latest branch; kept on the server. */
  function showVersion(index: number, id: string, label: string) {
    const leaf = latestLeaf(tree.nodes, id);
    setMessages(branchPath(tree.nodes, leaf).map((node) => tree.byId.get(node.id)!));
    if (!isNew)
      branchFetcher.submit({ intent: "branch", message: id }, { method: "post", action: `/nuvara/${chatId}` });
    // The message re-renders as another one: the cursor stays on the version buttons.
    requestAnimationFrame(() => focusVersionButton(index, label));
  }

  return function actionsFor(message: ChatMessage, index: number): MessageActions {
    if (conversation.busy) return NO_ACTIONS;
    const versions = versionsFor(tree, message, index, showVersion);
    if (message.role === "user") return { versions, ...userActions(options, index) };
    return { versions, ...replyActions(options, message, index) };
  };
}

/** ‹ n/m › when the message has other versions. */
function versionsFor(
  tree: Tree,
  message: ChatMessage,
  index: number,
  showVersion: (index: number, id: string, label: string) => void,
): MessageActions["versions"] {
  const ids = versionsOf(tree.nodes, message.id);
  const at = ids.indexOf(message.id);
  return ids.length > 1
    ? {
        index: at + 1,
        count: ids.length,
        onPrevious: at > 0 ? () => showVersion(index, ids[at - 1], PREVIOUS_VERSION) : undefined,
        onNext: at < ids.length - 1 ? () => showVersion(index, ids[at + 1], NEXT_VERSION) : undefined,
      }
    : undefined;
}

function userActions({ conversation, jumpToLatest }: Options, index: number): MessageActions {
  const { messages, setMessages, sendMessage } = conversation;
  return {
    // An edit is a new version beside this message: what followed it stays on the old branch.
    onEdit: (text) => {
      setMessages(messages.slice(0, index));
      void sendMessage({ text });
      jumpToLatest();
    },
  };
}

function replyActions(options: Options, message: ChatMessage, index: number): MessageActions {
  const { chatId, conversation, feedback, jumpToLatest, onReport } = options;
  const isLast = index === conversation.messages.length - 1;
  // The last reply failed (an error, or cut off when its server went away): the notice under it offers the one Retry.
  const failed = isLast && (conversation.error !== undefined || message.metadata?.status === "interrupted");
  return {
    // A new version of this reply, beside it.
    // The button goes with the old version: the cursor goes to the message box, as after a send.
    onRegenerate: failed
      ? undefined
      : () => {
          void conversation.regenerate({ messageId: message.id });
          jumpToLatest();
          focusComposer();
        },
    onReport: message.metadata?.status ? () => onReport(message.id) : undefined,
    feedback: message.metadata?.status
      ? {
          conversationId: chatId,
          rating: feedback?.[message.id] ?? null,
        }
      : undefined,
  };
}

function focusVersionButton(index: number, label: string) {
  const article = document.querySelectorAll("#transcript .message")[index];
  const buttons = article?.querySelectorAll<HTMLButtonElement>(".versions button");
  if (!buttons) return;
  const wanted = [...buttons].find((button) => button.getAttribute("aria-label") === label && !button.disabled);
  (wanted ?? [...buttons].find((button) => !button.disabled))?.focus();
}
