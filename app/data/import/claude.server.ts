import { z } from "zod";
import { IMPORT_LIMITS, isoTime, tidyTitle, type ReadItem } from "./normalized.server";
import { tooLong } from "./messages-bound.server";
import { orderTree, type RawNode } from "./tree.server";

/**
 * Claude.ai's data export (conversations.json): each conversation's
 * `chat_messages` in order; a message naming `parent_message_uuid` follows
 * that message (so edits and retries are branches), one without follows the
 * message before it. The branch shown is the latest message's. A file the
 * export names is listed on its message as not included: the export holds at
 * most its extracted text, which is not kept as a file (docs/decisions/104).
 */

const file = z.object({ file_name: z.string().nullish() }).passthrough();

const chatMessage = z
  .object({
    uuid: z.string(),
    text: z.string().nullish(),
    sender: z.string(),
    created_at: z.string().nullish(),
    content: z.array(z.object({ type: z.string(), text: z.string().nullish() }).passthrough()).nullish(),
    attachments: z.array(file).nullish(),
    files: z.array(file).nullish(),
    parent_message_uuid: z.string().nullish(),
  })
  .passthrough();

export const claudeConversation = z
  .object({
    uuid: z.string(),
    name: z.string().nullish(),
    created_at: z.string().nullish(),
    updated_at: z.string().nullish(),
    chat_messages: z.array(z.unknown()),
  })
  .passthrough();

/** Whether a parsed conversations.json looks like Claude.ai's: conversations with `chat_messages`. */
export function looksLikeClaude(data: unknown): boolean {
  return (
    Array.isArray(data) &&
    data.length > 0 &&
    typeof data[0] === "object" &&
    data[0] !== null &&
    "chat_messages" in data[0]
  );
}

export function readClaudeConversation(raw: unknown, index: number): ReadItem {
  const parsed = claudeConversation.safeParse(raw);
  if (!parsed.success) {
    const title = tidyTitle((raw as { name?: unknown } | null)?.name, `Conversation ${index + 1}`);
    return { sourceId: `#${index + 1}`, title, skipped: "it is not in Claude's conversation shape" };
  }
  const conversation = parsed.data;
  const sourceId = conversation.uuid;
  const title = tidyTitle(conversation.name);
  if (conversation.chat_messages.length > IMPORT_LIMITS.messagesPerConversation)
    return {
      sourceId,
      title,
      skipped: `it has more than ${IMPORT_LIMITS.messagesPerConversation.toLocaleString("en-US")} messages`,
    };

  const nodes: RawNode[] = [];
  let previous: string | null = null;
  for (const value of conversation.chat_messages) {
    const read = chatMessage.safeParse(value);
    if (!read.success) return { sourceId, title, skipped: "one of its messages is not in Claude's shape" };
    const source = read.data;
    const text = messageText(source);
    if (text.length > IMPORT_LIMITS.messageChars) return { sourceId, title, skipped: tooLong(text.length) };
    const missing = [...(source.attachments ?? []), ...(source.files ?? [])].map((f) => f.file_name ?? "a file");
    const role = source.sender === "human" ? "user" : source.sender === "assistant" ? "assistant" : null;
    const kept = role && (text.trim() || missing.length > 0);
    nodes.push({
      id: source.uuid,
      parentId:
        source.parent_message_uuid !== undefined && source.parent_message_uuid !== null
          ? source.parent_message_uuid
          : previous,
      message: kept
        ? {
            id: source.uuid,
            parentId: null,
            role,
            text,
            createdAt: isoTime(source.created_at),
            missing: [...new Set(missing)],
          }
        : null,
    });
    previous = source.uuid;
  }
  // The branch shown: the latest message's, the export keeping no other mark of it.
  const latest =
    [...nodes]
      .filter((n) => n.message)
      .sort((a, b) => timeOf(a) - timeOf(b))
      .at(-1)?.id ?? null;
  const tree = orderTree(nodes, latest);
  if (!tree.ok) return { sourceId, title, skipped: tree.reason };
  if (tree.messages.length === 0) return { sourceId, title, skipped: "it has no messages" };
  const createdAt = isoTime(conversation.created_at) ?? tree.messages[0].createdAt ?? new Date(0).toISOString();
  return {
    sourceId,
    title,
    conversation: {
      sourceId,
      title,
      createdAt,
      updatedAt: isoTime(conversation.updated_at) ?? createdAt,
      messages: tree.messages,
      currentLeafId: tree.currentLeafId,
    },
  };
}

function timeOf(node: RawNode): number {
  const time = node.message?.createdAt ? Date.parse(node.message.createdAt) : 0;
  return Number.isNaN(time) ? 0 : time;
}

/** The message's words: its text blocks when it has them (tool blocks left out), else its `text`. */
function messageText(source: z.infer<typeof chatMessage>): string {
  const blocks = (source.content ?? []).flatMap((block) => (block.type === "text" && block.text ? [block.text] : []));
  return (blocks.length > 0 ? blocks.join("\n\n") : (source.text ?? "")).trim();
}
