import type { ChatMessage } from "~/conversation/message-types";
import { Markdown } from "~/components/chat/markdown";
import { isToolPart, ToolStep } from "~/components/chat/tool-step";
import { MessageAttachments } from "~/components/chat/attachment-chips";
import { CitedReply } from "~/components/chat/citation-links";
import type { AttachmentRef, ReplySources } from "~/conversation/attachment-types";

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
export function SharedTranscript({ messages, shareId }: { messages: SharedMessage[]; shareId?: string }) {
  // In a share, files are there only when the owner chose to include them (app/data/shares.server.ts);
  // elsewhere (an admin reading a reported conversation) only their names are shown.
  const fileUrl = (id: string) => `/s/${shareId}/files/${id}`;
  const files = (message: SharedMessage) => {
    const attached = partsOf<AttachmentRef>(message, "data-attachment");
    if (shareId) return <MessageAttachments files={attached} urlOf={fileUrl} />;
    return attached.length > 0 ? (
      <p className="reported-files">Files sent with it: {attached.map((file) => file.name).join(", ")}</p>
    ) : null;
  };
  return (
    <div className="shared-transcript" role="log" aria-label="Shared conversation">
      {messages.map((message, index) => {
        const isUser = message.role === "user";
        return (
          <article
            key={index}
            className={`message ${isUser ? "from-user" : "from-assistant"}`}
            aria-label={isUser ? "User" : "Assistant"}
          >
            <header className="message-header">
              <span className="message-author">{isUser ? "User" : "Assistant"}</span>
            </header>
            <div className="message-body">
              {isUser ? (
                <>
                  <p className="user-text">{message.content}</p>
                  {files(message)}
                </>
              ) : (
                <CitedReply sources={storedSources(message)} text={message.content}>
                  {(message.parts as ChatMessage["parts"]).map((part, partIndex) => {
                    if (part?.type === "text") return <Markdown key={partIndex}>{part.text}</Markdown>;
                    if (part && isToolPart(part))
                      return <ToolStep key={partIndex} part={part} toolNames={NO_TOOL_NAMES} />;
                    return null;
                  })}
                </CitedReply>
              )}
            </div>
          </article>
        );
      })}
    </div>
  );
}

/** A reply's Sources as the snapshot stored them (read defensively: lists or nothing). */
function storedSources(message: SharedMessage): ReplySources {
  const found = partsOf<{ passages?: unknown; web?: unknown }>(message, "data-sources")[0];
  return {
    passages: Array.isArray(found?.passages) ? (found.passages as ReplySources["passages"]) : [],
    web: Array.isArray(found?.web) ? (found.web as ReplySources["web"]) : [],
  };
}

/** The data of a snapshot message's parts of one type (the snapshot is stored JSON: read defensively). */
function partsOf<T>(message: SharedMessage, type: string): T[] {
  return message.parts.flatMap((part) => {
    const found = part as { type?: unknown; data?: unknown } | null;
    return found?.type === type && found.data && typeof found.data === "object" ? [found.data as T] : [];
  });
}
