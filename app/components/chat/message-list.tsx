import type { ChatMessage } from "~/conversation/message-types";
import { ChatMessageView, type MessageActions } from "./chat-message";
import { StarterSuggestions } from "./starter-suggestions";
import type { ChatStatus } from "./stream-chat";

/** The transcript's messages (or, before the first, the suggestions to start with), then "thinking…" until a reply starts. */
export function MessageList({
  messages,
  status,
  busy,
  startDisabled,
  toolName,
  onStart,
  demoIds,
  toolNames,
  actionsFor,
}: {
  messages: ChatMessage[];
  status: ChatStatus;
  busy: boolean;
  /** The suggestions can't be sent (a reply on its way, or sending is blocked). */
  startDisabled: boolean;
  /** A prompt tool's chat: its first message waits in the box, so no starters compete with it. */
  toolName: string | null;
  onStart: (prompt: string) => void;
  demoIds: Set<string>;
  toolNames: Record<string, string>;
  actionsFor: (message: ChatMessage, index: number) => MessageActions;
}) {
  const lastIndex = messages.length - 1;
  return (
    <>
      {messages.length === 0 ? (
        toolName !== null ? (
          <ToolChatIntro name={toolName} />
        ) : (
          <EmptyChat onStart={onStart} disabled={startDisabled} />
        )
      ) : (
        messages.map((message, index) => (
          <ChatMessageView
            key={message.id}
            message={message}
            streaming={busy && index === lastIndex && message.role === "assistant"}
            isDemo={message.metadata?.demo === true || demoIds.has(message.metadata?.model ?? "")}
            toolNames={toolNames}
            actions={actionsFor(message, index)}
          />
        ))
      )}
      {status === "submitted" && messages[lastIndex]?.role !== "assistant" ? (
        <p className="typing" role="status">
          Assistant is thinking…
        </p>
      ) : null}
    </>
  );
}

function EmptyChat({ onStart, disabled }: { onStart: (prompt: string) => void; disabled: boolean }) {
  return (
    <div className="empty-chat">
      <p className="lead">How can I help?</p>
      <StarterSuggestions onPick={onStart} disabled={disabled} />
      <p className="fine-print">
        Enter sends, Shift+Enter adds a line. Replies can use a calculator, the date and time, and unit conversion.
      </p>
    </div>
  );
}

function ToolChatIntro({ name }: { name: string }) {
  return (
    <div className="empty-chat">
      <p className="lead">Using the tool “{name}”</p>
      <p className="fine-print">
        Your message is ready in the box below: read it, change it if you like, and send it. The assistant follows the
        tool&apos;s instructions in this chat.
      </p>
    </div>
  );
}
