import type { ChatMessage } from "~/chat/message-types";
import { Markdown } from "~/components/chat/markdown";
import { isToolPart, ToolStep } from "~/components/chat/tool-step";

/** A message of a shared snapshot, as the loader sends it. */
export interface SharedMessage {
  role: "user" | "assistant";
  parts: unknown[];
  content: string;
}

const NO_TOOL_NAMES: Record<string, string> = {};

/**
 * The snapshot, read-only: the user's messages as plain text, replies as the
 * same safe Markdown the chat uses (raw HTML never renders), and no actions.
 */
export function SharedTranscript({ messages }: { messages: SharedMessage[] }) {
  return (
    <div className="shared-transcript" role="log" aria-label="Shared conversation">
      {messages.map((message, index) => {
        const isUser = message.role === "user";
        return (
          <article key={index} className={`message ${isUser ? "from-user" : "from-assistant"}`} aria-label={isUser ? "User" : "Assistant"}>
            <header className="message-header">
              <span className="message-author">{isUser ? "User" : "Assistant"}</span>
            </header>
            <div className="message-body">
              {isUser ? (
                <p className="user-text">{message.content}</p>
              ) : (
                (message.parts as ChatMessage["parts"]).map((part, partIndex) => {
                  if (part?.type === "text") return <Markdown key={partIndex}>{part.text}</Markdown>;
                  if (part && isToolPart(part)) return <ToolStep key={partIndex} part={part} toolNames={NO_TOOL_NAMES} />;
                  return null;
                })
              )}
            </div>
          </article>
        );
      })}
    </div>
  );
}
