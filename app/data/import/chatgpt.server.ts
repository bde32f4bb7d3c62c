import { z } from "zod";
import { IMPORT_LIMITS, isoTime, tidyTitle, type ImportedMessage, type ReadItem } from "./normalized.server";
import { orderTree, type RawNode } from "./tree.server";
import { tooLong } from "./messages-bound.server";

/**
 * ChatGPT's data export (conversations.json): each conversation's messages
 * are a `mapping` of nodes, a tree whose branches are edits and regenerated
 * replies; `current_node` ends the branch that was shown. Kept: the user's
 * and the assistant's messages with text or files. Left out: system and
 * hidden messages, tool messages (a browsing or code run's output: the reply
 * after it says what came of it), reasoning summaries, and empty messages
 * (docs/decisions/104).
 */

const part = z.union([
  z.string(),
  z.object({ content_type: z.string().optional(), asset_pointer: z.string().optional() }).passthrough(),
  z.null(),
]);

const message = z
  .object({
    id: z.string().optional(),
    author: z.object({ role: z.string() }).passthrough(),
    create_time: z.number().nullish(),
    content: z
      .object({
        content_type: z.string(),
        parts: z.array(part).optional(),
        text: z.string().optional(),
        language: z.string().optional(),
      })
      .passthrough(),
    metadata: z
      .object({
        is_visually_hidden_from_conversation: z.boolean().nullish(),
        attachments: z.array(z.object({ name: z.string().optional() }).passthrough()).nullish(),
      })
      .passthrough()
      .nullish(),
  })
  .passthrough();

const node = z
  .object({
    id: z.string().optional(),
    parent: z.string().nullish(),
    children: z.array(z.string()).optional(),
    message: message.nullish(),
  })
  .passthrough();

export const chatgptConversation = z
  .object({
    id: z.string().optional(),
    conversation_id: z.string().optional(),
    title: z.string().nullish(),
    create_time: z.number().nullish(),
    update_time: z.number().nullish(),
    mapping: z.record(z.string(), z.unknown()),
    current_node: z.string().nullish(),
  })
  .passthrough();

/** Whether a parsed conversations.json looks like ChatGPT's: conversations with a `mapping`. */
export function looksLikeChatgpt(data: unknown): boolean {
  return (
    Array.isArray(data) && data.length > 0 && typeof data[0] === "object" && data[0] !== null && "mapping" in data[0]
  );
}

const KEPT_CONTENT = new Set(["text", "multimodal_text", "code"]);

export function readChatgptConversation(raw: unknown, index: number): ReadItem {
  const parsed = chatgptConversation.safeParse(raw);
  const fallbackId = `#${index + 1}`;
  if (!parsed.success) {
    const title = tidyTitle((raw as { title?: unknown } | null)?.title, `Conversation ${index + 1}`);
    return { sourceId: fallbackId, title, skipped: "it is not in ChatGPT's conversation shape" };
  }
  const conversation = parsed.data;
  const sourceId = conversation.id ?? conversation.conversation_id ?? fallbackId;
  const title = tidyTitle(conversation.title);
  const entries = Object.entries(conversation.mapping);
  if (entries.length > IMPORT_LIMITS.messagesPerConversation)
    return {
      sourceId,
      title,
      skipped: `it has more than ${IMPORT_LIMITS.messagesPerConversation.toLocaleString("en-US")} messages`,
    };

  const nodes: RawNode[] = [];
  for (const [key, value] of entries) {
    const read = node.safeParse(value);
    if (!read.success) return { sourceId, title, skipped: "one of its messages is not in ChatGPT's shape" };
    const kept = keptMessage(read.data.message ?? null);
    if (kept && kept.text.length > IMPORT_LIMITS.messageChars)
      return { sourceId, title, skipped: tooLong(kept.text.length) };
    nodes.push({ id: read.data.id ?? key, parentId: read.data.parent ?? null, message: kept });
  }
  const tree = orderTree(nodes, conversation.current_node ?? null);
  if (!tree.ok) return { sourceId, title, skipped: tree.reason };
  if (tree.messages.length === 0) return { sourceId, title, skipped: "it has no messages" };
  const createdAt = isoTime(conversation.create_time) ?? tree.messages[0].createdAt ?? new Date(0).toISOString();
  return {
    sourceId,
    title,
    conversation: {
      sourceId,
      title,
      createdAt,
      updatedAt: isoTime(conversation.update_time) ?? createdAt,
      messages: tree.messages,
      currentLeafId: tree.currentLeafId,
    },
  };
}

/** The message as kept, or null when it is left out. */
function keptMessage(source: z.infer<typeof message> | null): ImportedMessage | null {
  if (!source) return null;
  const role = source.author.role;
  if (role !== "user" && role !== "assistant") return null;
  if (source.metadata?.is_visually_hidden_from_conversation) return null;
  const content = source.content;
  if (!KEPT_CONTENT.has(content.content_type)) return null;
  const missing = (source.metadata?.attachments ?? []).map((file) => file.name ?? "a file");
  const texts: string[] = [];
  if (content.content_type === "code") {
    if (content.text?.trim())
      texts.push(
        "```" +
          (content.language && content.language !== "unknown" ? content.language : "") +
          "\n" +
          content.text +
          "\n```",
      );
  } else {
    for (const piece of content.parts ?? []) {
      if (typeof piece === "string") {
        if (piece.trim()) texts.push(piece);
      } else if (piece && piece.content_type === "image_asset_pointer" && missing.length === 0) {
        // An image without a named attachment: the export holds the file apart, if at all.
        missing.push("an image");
      }
    }
  }
  const text = texts.join("\n\n");
  if (!text.trim() && missing.length === 0) return null;
  return {
    id: source.id ?? "",
    parentId: null,
    role,
    text,
    createdAt: isoTime(source.create_time),
    missing,
  };
}
