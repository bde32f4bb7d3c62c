import { useFetcher, useNavigate, useRevalidator } from "@remix-run/react";
import { lazy, Suspense, useEffect, useMemo, useState, type ReactNode } from "react";
import { describeChatError } from "~/chat/client-errors";
import type { ChatMessage } from "~/conversation/message-types";
import { messageText } from "~/conversation/message-types";
import {
  formatResetTime,
  quotaExhaustedMessage,
  remainingText,
} from "~/budgets/quota-text";
import { budgetLeftText, budgetSpentMessage, fallbackText, type BudgetView } from "~/budgets/budget-text";
import { branchPath, latestLeaf, versionsOf } from "~/conversation/branches";
import { ChatMessageView, type MessageActions } from "./chat-message";
import { chatSession } from "./chat-sessions";
import { useNonce } from "~/components/nonce";
import { Composer, focusComposer } from "./composer";
import { scrollToLatestScript, useFollowLatest } from "./follow-latest";
import { unsent, useDraft } from "./drafts";
import { useBrowserLayoutEffect } from "./use-browser-layout-effect";
import { useOpenedOnce } from "./opened-once";
import { useStreamChat } from "./stream-chat";
import { ShareButton } from "~/components/share/share-button";
import { SidebarToggle } from "./sidebar-toggle";
import { StarterSuggestions } from "./starter-suggestions";
import { useReplyAnnouncement } from "./use-reply-announcement";
import { useHydrated } from "./use-hydrated";
import { readyFiles, useAttachmentUploads } from "./attachment-uploads";
import { useAssistantData } from "./assistant-data";

// Loaded when a reply is first reported: not part of the page's first load (ADR 051).
const ReportDialog = lazy(() =>
  import("./report-dialog").then((module) => ({ default: module.ReportDialog }))
);

export interface ModelChoice {
  id: string;
  label: string;
  demo: boolean;
  /** Takes images (LLM_VISION_MODELS). */
  vision?: boolean;
}

export interface QuotaView {
  limit: number | null;
  remaining: number | null;
  resetsAt: string;
  /** The tightest budget (docs/decisions/072); null: the role has none. */
  budget?: BudgetView | null;
  /** Where a user who hit a limit can get more (the pricing page), when plans are on offer. */
  upgradeUrl?: string | null;
}

export interface ChatViewProps {
  /** The conversation's id (for a new chat, the one it will be created with). */
  chatId: string;
  /** Not on the server yet: the first send creates it. */
  isNew: boolean;
  title: string | null;
  /** Every stored version (the message tree, each knowing its parent); the branch to `leafId` is shown. */
  initialMessages: ChatMessage[];
  /** The last message of the branch shown (docs/decisions/069). */
  leafId?: string | null;
  models: ModelChoice[];
  /** The conversation's model; the first allowed model when unset or no longer allowed. */
  model: string | null;
  quota: QuotaView;
  /** Instructions in effect for this conversation, shown so the user knows. */
  customInstructions: string | null;
  toolInstructions: boolean;
  toolNames: Record<string, string>;
  /** The owner's 👍/👎 by reply id. */
  feedback?: Record<string, 1 | -1>;
  /** A reply being written for this conversation, possibly by another tab or device (docs/decisions/070). */
  running?: RunningReply | null;
  /** Where the composer's text is kept (app/components/chat/drafts.ts): "new" on /nuvara, otherwise the conversation's id. */
  draftKey?: string;
}

export interface RunningReply {
  runId: string;
  userMessage: { id: string; text: string; kind: "submit" | "regenerate"; parentId?: string | null };
}

/** One conversation: its header (title, model, export), the transcript, errors with Retry, and the composer. */
export function ChatView(props: ChatViewProps) {
  const { chatId, isNew, models } = props;
  const initialModel =
    models.find((option) => option.id === props.model)?.id ??
    models[0]?.id ??
    "";
  const stored = props.initialMessages;
  const shownBranch = useMemo(() => storedBranch(stored, props.leafId), [stored, props.leafId]);
  const session = chatSession(chatId, shownBranch, {
    model: initialModel,
    create: isNew,
  });
  const {
    messages,
    status,
    error,
    sendMessage,
    regenerate,
    stop,
    setMessages,
  } = useStreamChat(session.chat);
  const busy = status === "submitted" || status === "streaming";

  const navigate = useNavigate();
  const revalidator = useRevalidator();
  const modelFetcher = useFetcher();
  const branchFetcher = useFetcher();
  const hydrated = useHydrated();
  const timeZone = hydrated ? undefined : "UTC";
  const unsentKey = isNew ? "new" : chatId;
  const [draft, setDraft, moveDraftTo] = useDraft(props.draftKey ?? chatId);
  const [model, setModel] = useState(session.settings.model);
  const uploads = useAttachmentUploads(useAssistantData().attachmentLimits);
  const [dragging, setDragging] = useState(false);
  const chosenModel = models.find((option) => option.id === model);
  const fileProblem =
    chosenModel && !chosenModel.vision && uploads.files.some((file) => file.status !== "failed" && file.stored?.kind === "image")
      ? `${chosenModel.label} can't see images. ${
          models.some((option) => option.vision) ? "Choose a model that can, or remove the image." : "Remove the image to send your message."
        }`
      : null;
  const [reporting, setReporting] = useState<string | null>(null);
  const reportLoaded = useOpenedOnce(reporting !== null);
  const [restoredNotice, setRestoredNotice] = useState(false);
  const follow = useFollowLatest();
  const nonce = useNonce();

  // The message box has the cursor when a chat opens (also after the first
  // send, which moves the chat to its own URL) — unless the user is typing
  // somewhere else, e.g. searching, or is on a touch screen, where focus
  // would throw the keyboard over the page. Before the browser handles the
  // next key (a layout effect): this box may replace one the user is typing in.
  useBrowserLayoutEffect(() => {
    const active = document.activeElement;
    if (
      active &&
      active !== document.body &&
      active.matches("input, textarea, select, [contenteditable]")
    )
      return;
    if (window.matchMedia("(pointer: coarse)").matches) return;
    focusComposer();
  }, []);

  // A reply being written (this tab was reloaded, or it was sent from another
  // tab or device): show the question and follow the reply from its start.
  const running = props.running;
  useEffect(() => {
    const chat = session.chat;
    if (!running || chat.status !== "ready") return;
    if (chat.messages.some((message) => message.id === running.runId)) return;
    setMessages(withQuestion(shownBranch, running.userMessage));
    void chat.attach(running.runId);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per reply being written
  }, [session, running?.runId]);

  // Show what the server holds (e.g. returning to a conversation, or after a
  // reply is saved) — unless this tab is ahead of it: a reply streaming, a
  // failed send waiting for Retry, or an exchange the loaded data predates.
  useEffect(() => {
    const chat = session.chat;
    if (isNew || chat.status !== "ready") return;
    const ids = new Set(stored.map((message) => message.id));
    if (chat.messages.every((message) => ids.has(message.id)))
      setMessages(shownBranch);
  }, [session, isNew, stored, shownBranch, setMessages]);

  // A message whose reply was never confirmed comes back into the composer after a reload.
  useEffect(() => {
    const text = unsent.read(unsentKey);
    if (!text) return;
    const chat = session.chat;
    const shown = chat.messages.some(
      (message) => message.role === "user" && messageText(message) === text
    );
    if (shown) {
      // Loaded from the server: it was saved. Otherwise this tab still holds it (in flight, or with Retry).
      if (chat.status === "ready") unsent.clear(unsentKey);
      return;
    }
    unsent.clear(unsentKey);
    if (!draft) setDraft(text);
    setRestoredNotice(true);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per conversation shown
  }, [unsentKey]);

  useEffect(() => {
    session.events = {
      onConversation(id) {
        if (!isNew) return;
        // The conversation exists now: give it its own URL (same chat, no reload).
        unsent.move("new", id);
        moveDraftTo(id);
        navigate(`/nuvara/${id}`, { replace: true, preventScrollReset: true });
      },
      onSaved(saved) {
        unsent.clear(saved.conversationId);
        setMessages((current) =>
          current.map((message) =>
            message.id === saved.replyId
              ? {
                  ...message,
                  metadata: {
                    ...message.metadata,
                    status: saved.status,
                    createdAt: new Date().toISOString(),
                  },
                }
              : message
          )
        );
        revalidator.revalidate();
      },
      onFinish({ isAbort }) {
        if (!isAbort) return;
        // Stopped: the server keeps the partial reply, marked stopped.
        unsent.clear(chatId);
        setMessages((current) => {
          const last = current[current.length - 1];
          if (last?.role !== "assistant") return current;
          return [
            ...current.slice(0, -1),
            { ...last, metadata: { ...last.metadata, status: "stopped" } },
          ];
        });
        setTimeout(() => revalidator.revalidate(), 300);
      },
    };
    return () => {
      session.events = {};
    };
  }, [session, isNew, chatId, navigate, revalidator, setMessages, moveDraftTo]);

  const exhausted = props.quota.remaining === 0;
  const budget = props.quota.budget;
  const budgetSpent = budget?.spent === true && !budget.fallback;
  const blockedReason =
    models.length === 0 ? "No model is available." : exhausted ? "quota" : budgetSpent ? "budget" : null;
  const demoIds = useMemo(
    () =>
      new Set(
        models.filter((option) => option.demo).map((option) => option.id)
      ),
    [models]
  );
  const shownError = error ? describeChatError(error, timeZone) : null;
  const announcement = useReplyAnnouncement(
    chatId,
    status,
    messages,
    Boolean(error)
  );

  function send(text: string) {
    setRestoredNotice(false);
    unsent.remember(unsentKey, text);
    setDraft("");
    const attachments = readyFiles(uploads.files);
    uploads.clear();
    void sendMessage({ text, attachments });
    // One's own message is followed by its reply: back to the latest, and the cursor stays in the box.
    follow.jump();
    focusComposer();
  }

  function stopReply() {
    void stop();
    focusComposer();
  }

  // Escape in the message box or the transcript stops a streaming reply.
  function stopOnEscape() {
    if (busy) stopReply();
  }

  function chooseModel(id: string) {
    setModel(id);
    session.settings.model = id;
    if (!isNew)
      modelFetcher.submit(
        { intent: "model", model: id },
        { method: "post", action: `/nuvara/${chatId}` }
      );
  }

  const lastIndex = messages.length - 1;
  const tree = useMemo(() => messageTree(stored, messages), [stored, messages]);

  /** Shows another version of the message at `index`, with its latest branch; kept on the server. */
  function showVersion(index: number, id: string, label: string) {
    const leaf = latestLeaf(tree.nodes, id);
    setMessages(branchPath(tree.nodes, leaf).map((node) => tree.byId.get(node.id)!));
    if (!isNew)
      branchFetcher.submit(
        { intent: "branch", message: id },
        { method: "post", action: `/nuvara/${chatId}` }
      );
    // The message re-renders as another one: the cursor stays on the version buttons.
    requestAnimationFrame(() => focusVersionButton(index, label));
  }

  function actionsFor(message: ChatMessage, index: number): MessageActions {
    if (busy) return {};
    const ids = versionsOf(tree.nodes, message.id);
    const at = ids.indexOf(message.id);
    const versions =
      ids.length > 1
        ? {
            index: at + 1,
            count: ids.length,
            onPrevious:
              at > 0
                ? () => showVersion(index, ids[at - 1], PREVIOUS_VERSION)
                : undefined,
            onNext:
              at < ids.length - 1
                ? () => showVersion(index, ids[at + 1], NEXT_VERSION)
                : undefined,
          }
        : undefined;
    if (message.role === "user") {
      return {
        versions,
        // An edit is a new version beside this message: what followed it stays on the old branch.
        onEdit: (text) => {
          setMessages(messages.slice(0, index));
          void sendMessage({ text });
          follow.jump();
        },
      };
    }
    return {
      versions,
      // A new version of this reply, beside it.
      // The button goes with the old version: the cursor goes to the message box, as after a send.
      onRegenerate: () => {
        void regenerate({ messageId: message.id });
        follow.jump();
        focusComposer();
      },
      // Cut off when its server went away: the last one can go on where it stopped.
      onContinue:
        message.metadata?.status === "interrupted" && index === lastIndex && !blockedReason
          ? () => send(CONTINUE_PROMPT)
          : undefined,
      onReport: message.metadata?.status
        ? () => setReporting(message.id)
        : undefined,
      feedback: message.metadata?.status
        ? {
            conversationId: chatId,
            rating: props.feedback?.[message.id] ?? null,
          }
        : undefined,
    };
  }

  return (
    <section
      className={`chat${dragging ? " dropping" : ""}`}
      aria-labelledby="chat-title"
      // Files dropped anywhere on the chat are attached to the next message.
      onDragOver={(event) => {
        if (!event.dataTransfer.types.includes("Files")) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as HTMLElement | null)) setDragging(false);
      }}
      onDrop={(event) => {
        if (event.dataTransfer.files.length === 0) return;
        event.preventDefault();
        setDragging(false);
        uploads.add(Array.from(event.dataTransfer.files));
        focusComposer();
      }}
    >
      {dragging ? (
        <div className="drop-overlay" aria-hidden="true">
          Drop files to attach them
        </div>
      ) : null}
      <header className="chat-header">
        <SidebarToggle />
        <h2 id="chat-title" className="chat-title">
          {props.title ?? "New chat"}
        </h2>
        <div className="chat-tools">
          {props.customInstructions ? (
            <details className="instructions-badge">
              <summary>Custom instructions on</summary>
              <p>{props.customInstructions}</p>
            </details>
          ) : null}
          {props.toolInstructions ? (
            <span className="badge">Tool instructions on</span>
          ) : null}
          <label className="model-picker">
            <span>Model</span>
            <select
              value={model}
              onChange={(event) => chooseModel(event.target.value)}
              // Before the page is live a choice would be undone by hydration: it waits, like Send.
              disabled={!hydrated || busy || models.length === 0}
            >
              {models.map((option) => (
                <option key={option.id} value={option.id}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          {!isNew ? (
            <a
              className="button"
              href={`/api/conversations/${chatId}/markdown`}
              download
            >
              Export
            </a>
          ) : null}
          {!isNew ? <ShareButton conversationId={chatId} /> : null}
        </div>
      </header>

      {models.length === 0 ? (
        <p className="banner" role="alert">
          No model is available for your plan. Please ask an administrator.
        </p>
      ) : demoIds.has(model) ? (
        <p className="banner demo-banner">
          You are using the built-in demo model. It is not an AI: it only
          explains how to connect a real model.
        </p>
      ) : null}

      <div className="transcript-area">
        <div
          ref={follow.scroller}
          id="transcript"
          className="transcript"
          role="log"
          // A log is polite by default: that would read every token out; the status below announces the finished reply instead.
          aria-live="off"
          aria-label="Conversation"
          aria-busy={busy}
          // Scrollable, so reachable by keyboard (arrows and Page Up/Down read back).
          tabIndex={0}
          onKeyDown={(event) => {
            if (event.key === "Escape" && !event.shiftKey && busy) {
              event.preventDefault();
              stopOnEscape();
            }
          }}
        >
          <div ref={follow.content} className="transcript-content">
            {messages.length === 0 ? (
              <div className="empty-chat">
                <p className="lead">How can I help?</p>
                <StarterSuggestions
                  onPick={send}
                  disabled={busy || blockedReason !== null}
                />
                <p className="fine-print">
                  Enter sends, Shift+Enter adds a line. Replies can use a
                  calculator, the date and time, and unit conversion.
                </p>
              </div>
            ) : (
              messages.map((message, index) => (
                <ChatMessageView
                  key={message.id}
                  message={message}
                  streaming={
                    busy && index === lastIndex && message.role === "assistant"
                  }
                  isDemo={
                    message.metadata?.demo === true ||
                    demoIds.has(message.metadata?.model ?? "")
                  }
                  toolNames={props.toolNames}
                  actions={actionsFor(message, index)}
                />
              ))
            )}
            {status === "submitted" &&
            messages[lastIndex]?.role !== "assistant" ? (
              <p className="typing" role="status">
                Assistant is thinking…
              </p>
            ) : null}
            {shownError ? (
              <div className="chat-error" role="alert">
                <p>{shownError.message}</p>
                {shownError.signedOut ? (
                  <a
                    className="button"
                    href={`/login?redirectTo=${encodeURIComponent(
                      `/nuvara/${chatId}`
                    )}`}
                  >
                    Sign in again
                  </a>
                ) : shownError.quotaExhausted ? (
                  // A limit Retry can't get past: the way to more, when plans are on offer.
                  props.quota.upgradeUrl ? (
                    <a className="button" href={props.quota.upgradeUrl}>
                      See plans
                    </a>
                  ) : null
                ) : (
                  <button
                    type="button"
                    className="button primary"
                    onClick={() => {
                      void regenerate();
                      focusComposer();
                    }}
                  >
                    Retry
                  </button>
                )}
              </div>
            ) : null}
          </div>
        </div>
        <script
          nonce={nonce}
          suppressHydrationWarning
          dangerouslySetInnerHTML={{ __html: scrollToLatestScript }}
        />
        {follow.away ? (
          <button
            type="button"
            className="button jump-to-latest"
            onClick={() => {
              follow.jump();
              // The button goes away; the cursor goes where the reading left off — the box.
              focusComposer();
            }}
          >
            <span aria-hidden="true">↓ </span>Jump to latest
          </button>
        ) : null}
      </div>

      <Composer
        files={uploads.files}
        onAttach={uploads.add}
        onRemoveFile={uploads.remove}
        fileProblem={fileProblem}
        value={draft}
        onChange={setDraft}
        onSend={send}
        onStop={stopReply}
        onEscape={stopOnEscape}
        busy={busy}
        blockedReason={blockedReason}
        footer={
          <>
            {restoredNotice ? (
              <span role="status">
                Your last message wasn't confirmed as sent, so it's back in the
                box.
              </span>
            ) : null}
            <QuotaLine quota={props.quota} timeZone={timeZone} />
          </>
        }
      />
      {reportLoaded ? (
        <Suspense fallback={null}>
          <ReportDialog
            messageId={reporting}
            onClose={() => setReporting(null)}
          />
        </Suspense>
      ) : null}
      {/* Announces a finished reply once; the transcript itself is not live, so tokens are not read out as they come. */}
      <p
        className="visually-hidden"
        role="status"
        aria-live="polite"
        data-testid="reply-announcement"
      >
        {announcement}
      </p>
    </section>
  );
}

const PREVIOUS_VERSION = "Previous version";
const NEXT_VERSION = "Next version";

function focusVersionButton(index: number, label: string) {
  const article = document.querySelectorAll("#transcript .message")[index];
  const buttons = article?.querySelectorAll<HTMLButtonElement>(".versions button");
  if (!buttons) return;
  const wanted = [...buttons].find((button) => button.getAttribute("aria-label") === label && !button.disabled);
  (wanted ?? [...buttons].find((button) => !button.disabled))?.focus();
}

type Node = { id: string; parentId: string | null };

function nodeOf(message: ChatMessage): Node {
  return { id: message.id, parentId: message.metadata?.parentId ?? null };
}

/** The stored branch to `leafId`. */
/** What Continue sends after an interrupted reply: the model sees its partial reply and goes on. */
const CONTINUE_PROMPT = "Please continue from where your last reply stopped.";

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

function storedBranch(stored: ChatMessage[], leafId: string | null | undefined): ChatMessage[] {
  if (stored.length === 0) return stored;
  const byId = new Map(stored.map((message) => [message.id, message]));
  return branchPath(stored.map(nodeOf), leafId).map((node) => byId.get(node.id)!);
}

/**
 * The stored tree with what this tab shows beyond it (a message being
 * answered, a reply streaming), each following the one shown before it.
 */
function messageTree(stored: ChatMessage[], shown: ChatMessage[]) {
  const byId = new Map(stored.map((message) => [message.id, message]));
  const nodes = stored.map(nodeOf);
  shown.forEach((message, index) => {
    if (!byId.has(message.id)) nodes.push({ id: message.id, parentId: shown[index - 1]?.id ?? null });
    byId.set(message.id, message);
  });
  return { nodes, byId };
}

function QuotaLine({
  quota,
  timeZone,
}: {
  quota: QuotaView;
  timeZone: string | undefined;
}) {
  const upgrade = quota.upgradeUrl ? (
    <>
      {" "}
      <a href={quota.upgradeUrl}>See plans</a>
    </>
  ) : null;
  const budget = quota.budget ? <BudgetLine budget={quota.budget} timeZone={timeZone} upgrade={upgrade} /> : null;
  if (quota.remaining === null || quota.limit === null) return budget;
  const resetsAt = new Date(quota.resetsAt);
  if (quota.remaining === 0) {
    return (
      <span className="quota exhausted" role="status">
        {quotaExhaustedMessage(quota.limit, resetsAt, timeZone)}
        {upgrade}
      </span>
    );
  }
  return (
    <>
      <span className="quota">
        {remainingText(quota.remaining)} · resets at{" "}
        {formatResetTime(resetsAt, timeZone)}
      </span>
      {budget}
    </>
  );
}

/** What is left of the tightest budget; once spent, what happens instead (docs/decisions/072). */
function BudgetLine({ budget, timeZone, upgrade }: { budget: BudgetView; timeZone: string | undefined; upgrade: ReactNode }) {
  if (budget.spent) {
    return (
      <span className={`quota budget ${budget.fallback ? "nearly" : "exhausted"}`} role="status">
        {budget.fallback ? fallbackText(budget, timeZone) : budgetSpentMessage(budget, timeZone)}
        {upgrade}
      </span>
    );
  }
  return (
    <span className={`quota budget${budget.nearlySpent ? " nearly" : ""}`}>
      {budgetLeftText(budget)}
      {budget.nearlySpent ? upgrade : null}
    </span>
  );
}
