import type { ChatMessage } from "~/conversation/message-types";

/** A conversation as a Markdown document, for download. */
export interface ExportedConversation {
  title: string | null;
  createdAt: Date;
  messages: ChatMessage[];
}

function when(iso: string | undefined): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "";
}

function toolName(type: string): string {
  return type.replace(/^tool-/, "").replace(/_/g, " ");
}

/** Inline code that survives backticks in the value. */
function inlineCode(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  const fence = text.includes("`") ? "``" : "`";
  return `${fence}${text}${fence}`;
}

export function conversationToMarkdown(
  { title, createdAt, messages }: ExportedConversation,
  exportedAt = new Date(),
): string {
  // Blocks separated by one blank line.
  const blocks = [
    `# ${title ?? "New chat"}`,
    `_Started ${when(createdAt.toISOString())}; exported from Nuvara² ${when(exportedAt.toISOString())}._`,
  ];
  for (const message of messages) {
    const meta = message.metadata ?? {};
    const who = message.role === "user" ? "You" : `Assistant${meta.model ? ` (${meta.model})` : ""}`;
    blocks.push("---", `**${who}** · ${when(meta.createdAt)}`.trimEnd());
    for (const part of message.parts) {
      if (part.type === "text") blocks.push(part.text);
      else if ("toolCallId" in part && part.state === "output-available") {
        blocks.push(`> Used ${toolName(part.type)}: ${inlineCode(part.input)} → ${inlineCode(part.output)}`);
      } else if ("toolCallId" in part && part.state === "output-error") {
        blocks.push(`> Used ${toolName(part.type)}: ${inlineCode(part.input)} → error: ${part.errorText}`);
      }
    }
    if (meta.status === "stopped") blocks.push("_(stopped before the end)_");
  }
  return `${blocks.join("\n\n")}\n`;
}

/** A file name from the title: letters (any script), digits and dashes only. */
export function exportFileName(title: string | null): string {
  const slug = (title ?? "")
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .trim()
    .replace(/\s+/g, "-")
    .slice(0, 60)
    .toLowerCase();
  return `${slug || "conversation"}.md`;
}

/** Content-Disposition for a download, with an ASCII fallback for old clients. */
export function attachmentHeader(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "").replace(/["\\]/g, "") || "conversation.md";
  return `attachment; filename="${ascii === ".md" ? "conversation.md" : ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
