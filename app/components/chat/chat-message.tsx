import { memo, useState, type FormEvent, type KeyboardEvent } from "react";
import type { ChatMessage } from "~/conversation/message-types";
import { messageText } from "~/conversation/message-types";
import { focusComposer } from "./composer";
import { CopyButton } from "./copy-button";
import { FeedbackButtons, type FeedbackState } from "./feedback-buttons";
import { Markdown } from "./markdown";
import { isToolPart, MEMORY_PAGE, ToolStep } from "./tool-step";
import { MessageAttachments } from "./attachment-chips";
import { CitedReply } from "./citation-links";
import type { AttachmentRef, ReplySources } from "~/conversation/attachment-types";
import type { ToolApprovalView, ToolProgressView } from "~/conversation/tool-approval";
import type { ToolElicitationView } from "~/conversation/tool-elicitation";

/** The approval of each tool call that needed one, by the call's id (docs/decisions/091). */
function approvalsOf(message: ChatMessage): Map<string, ToolApprovalView> {
  return new Map(
    message.parts.flatMap((part) =>
      part.type === "data-approval" ? [[part.data.toolCallId, part.data] as const] : [],
    ),
  );
}

/** The latest request for input of each server's tool call, by the call's id (docs/decisions/095). */
function elicitationsOf(message: ChatMessage): Map<string, ToolElicitationView> {
  return new Map(
    message.parts.flatMap((part) =>
      part.type === "data-elicitation" ? [[part.data.toolCallId, part.data] as const] : [],
    ),
  );
}

/** The last progress report of each server's tool still running, by the call's id. */
function progressOf(message: ChatMessage): Map<string, ToolProgressView> {
  return new Map(
    message.parts.flatMap((part) =>
      part.type === "data-tool-progress" ? [[part.data.toolCallId, part.data] as const] : [],
    ),
  );
}

/** The memories a reply was given from earlier chats (docs/decisions/103). */
function memoriesOf(message: ChatMessage): Array<{ id: string; text: string }> {
  return message.parts.find((part) => part.type === "data-memories")?.data.memories ?? [];
}

/** "Used 3 memories", opening to the list: light, under the reply's header. */
function UsedMemories({ memories }: { memories: Array<{ id: string; text: string }> }) {
  if (memories.length === 0) return null;
  return (
    <details className="used-memories">
      <summary>
        Used {memories.length} {memories.length === 1 ? "memory" : "memories"}
      </summary>
      <ul>
        {memories.map((memory) => (
          <li key={memory.id}>{memory.text}</li>
        ))}
      </ul>
      <a href={MEMORY_PAGE}>Manage memories</a>
    </details>
  );
}

function sourcesOf(message: ChatMessage): ReplySources | undefined {
  return message.parts.find((part) => part.type === "data-sources")?.data;
}

export interface MessageActions {
  /** Offered on every reply when idle: a new version beside it. */
  onRegenerate?: () => void;
  /** Offered on every message the user sent when idle: a new version beside it. */
  onEdit?: (text: string) => void;
  /** ‹ n/m ›: the message has other versions (docs/decisions/069). */
  versions?: Versions;
  /** Offered on stored replies. */
  onReport?: () => void;
  /** 👍/👎, offered on stored replies. */
  feedback?: FeedbackState;
}

/**
 * One message of the transcript: the user's as plain text, a reply as safe
 * Markdown with its tool steps. Memoized: while a reply streams, the messages
 * before it keep their props and are not rendered again on each update.
 */
export const ChatMessageView = memo(function ChatMessageView({
  message,
  streaming,
  isDemo,
  toolNames,
  actions,
}: {
  message: ChatMessage;
  streaming: boolean;
  isDemo: boolean;
  toolNames: Record<string, string>;
  actions: MessageActions;
}) {
  const [editing, setEditing] = useState(false);
  const isUser = message.role === "user";
  const text = messageText(message);
  const status = message.metadata?.status;
  const approvals = approvalsOf(message);
  const elicitations = elicitationsOf(message);
  const progress = progressOf(message);
  const waitingForYou = [...approvals.values(), ...elicitations.values()].some((card) => card.status === "pending");

  return (
    <article className={`message ${isUser ? "from-user" : "from-assistant"}`} aria-label={isUser ? "You" : "Assistant"}>
      <header className="message-header">
        <span className="message-author">{isUser ? "You" : "Assistant"}</span>
        {!isUser && isDemo ? <span className="badge demo">Demo — not an AI</span> : null}
        {!isUser && message.metadata?.model && !isDemo ? (
          <span className="message-model">{message.metadata.model}</span>
        ) : null}
        {status === "stopped" ? <span className="badge">Stopped</span> : null}
        {status === "interrupted" ? <span className="badge">Interrupted</span> : null}
      </header>

      {editing && actions.onEdit ? (
        <EditForm
          initial={text}
          // Leaving Edit either way puts the cursor back in the message box.
          onCancel={() => {
            setEditing(false);
            focusComposer();
          }}
          onSave={(next) => {
            setEditing(false);
            actions.onEdit?.(next);
            focusComposer();
          }}
        />
      ) : (
        <div className="message-body">
          {isUser ? (
            <>
              <p className="user-text">{text}</p>
              <MessageAttachments
                files={message.parts.flatMap((part) =>
                  part.type === "data-attachment" ? [part.data as AttachmentRef] : [],
                )}
              />
            </>
          ) : (
            <CitedReply sources={sourcesOf(message)} text={text}>
              <UsedMemories memories={memoriesOf(message)} />
              {message.parts.map((part, index) => {
                if (part.type === "text")
                  return (
                    // Only the part being written is still open: its last block waits for math and highlighting.
                    <Markdown key={index} streaming={streaming && index === message.parts.length - 1}>
                      {part.text}
                    </Markdown>
                  );
                if (isToolPart(part))
                  return (
                    <ToolStep
                      key={part.toolCallId}
                      part={part}
                      toolNames={toolNames}
                      approval={approvals.get(part.toolCallId)}
                      elicitation={elicitations.get(part.toolCallId)}
                      progress={progress.get(part.toolCallId)}
                    />
                  );
                return null;
              })}
            </CitedReply>
          )}
          <MissingAttachments message={message} />
          {!isUser && streaming && text === "" && !waitingForYou ? <p className="typing">Thinking…</p> : null}
          {/* The last reply's failure is said by the notice under it (app/components/chat/chat-error-notice.tsx). */}
          {status === "interrupted" && !streaming && actions.onRegenerate ? (
            <p className="interrupted-note">
              The server writing this reply went away before it finished{text ? "; what it wrote is kept" : ""}.
            </p>
          ) : null}
        </div>
      )}

      {!streaming && !editing ? (
        <footer className="message-actions">
          {actions.versions ? <VersionSwitch {...actions.versions} /> : null}
          {text ? <CopyButton text={text} label={isUser ? "Copy message" : "Copy reply"} /> : null}
          {actions.onEdit ? (
            <button type="button" className="chip-button" onClick={() => setEditing(true)}>
              Edit
            </button>
          ) : null}
          {actions.onRegenerate ? (
            <button type="button" className="chip-button" onClick={actions.onRegenerate}>
              Regenerate
            </button>
          ) : null}
          {actions.feedback ? <FeedbackButtons messageId={message.id} feedback={actions.feedback} /> : null}
          {actions.onReport ? (
            <button type="button" className="chip-button" onClick={actions.onReport}>
              Report
            </button>
          ) : null}
        </footer>
      ) : null}
    </article>
  );
});

export interface Versions {
  /** 1-based. */
  index: number;
  count: number;
  onPrevious?: () => void;
  onNext?: () => void;
}

/** ‹ 2/3 ›: moves between the versions of a message (an edit, a regenerated reply). */
function VersionSwitch({ index, count, onPrevious, onNext }: Versions) {
  return (
    <span className="versions" role="group" aria-label={`Version ${index} of ${count}`}>
      <button
        type="button"
        className="chip-button"
        aria-label="Previous version"
        disabled={!onPrevious}
        onClick={onPrevious}
      >
        <span aria-hidden="true">‹</span>
      </button>
      <span className="versions-count">
        {index}/{count}
      </span>
      <button type="button" className="chip-button" aria-label="Next version" disabled={!onNext} onClick={onNext}>
        <span aria-hidden="true">›</span>
      </button>
    </span>
  );
}

function EditForm({
  initial,
  onSave,
  onCancel,
}: {
  initial: string;
  onSave: (text: string) => void;
  onCancel: () => void;
}) {
  const [text, setText] = useState(initial);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim()) onSave(text);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Escape") {
      // Escape here leaves Edit only; it is not also "stop the reply".
      event.stopPropagation();
      onCancel();
    }
  };
  return (
    <form className="edit-form" onSubmit={submit}>
      <textarea
        aria-label="Edit your message"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        rows={3}
        autoFocus
      />
      <div className="edit-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={!text.trim()}>
          Save and send
        </button>
      </div>
    </form>
  );
}

/** Files an imported message had that its export did not include (docs/decisions/104): said, so nothing seems lost silently. */
function MissingAttachments({ message }: { message: ChatMessage }) {
  const names = message.parts.flatMap((part) =>
    part.type === "data-missing-attachment" ? [(part.data as { name: string }).name] : [],
  );
  if (names.length === 0) return null;
  return (
    <ul className="missing-attachments">
      {names.map((name, index) => (
        <li key={index}>Attachment not included in the export: {name}</li>
      ))}
    </ul>
  );
}
