import { z } from "zod";
import { IMPORT_LIMITS, isoTime, tidyTitle, type ReadItem } from "./normalized.server";
import { tooLong } from "./messages-bound.server";
import { orderTree, type RawNode } from "./tree.server";

/**
 * This app's own account export (POST /api/account/export,
 * app/data/account.server.ts): its conversations with their messages'
 * parents, so the branches come back as they were. Files sent in a chat are
 * listed on their message as not included (docs/decisions/104); a reply's
 * sources and tool steps are not imported, only its words.
 */

const exportedMessage = z
  .object({
    id: z.string(),
    parentId: z.string().nullish(),
    role: z.string(),
    content: z.string(),
    parts: z.array(z.unknown()).optional(),
    createdAt: z.string().nullish(),
  })
  .passthrough();

const exportedConversation = z
  .object({
    id: z.string(),
    title: z.string().nullish(),
    createdAt: z.string(),
    updatedAt: z.string(),
    currentLeafId: z.string().nullish(),
    messages: z.array(z.unknown()),
  })
  .passthrough();

export const nuvaraExport = z
  .object({ format: z.literal("nuvara-account-export"), conversations: z.array(z.unknown()) })
  .passthrough();

export function looksLikeNuvara(data: unknown): boolean {
  return typeof data === "object" && data !== null && (data as { format?: unknown }).format === "nuvara-account-export";
}

const attachmentPart = z.object({
  type: z.literal("data-attachment"),
  data: z.object({ name: z.string() }).passthrough(),
});

export function readNuvaraConversation(raw: unknown, index: number): ReadItem {
  const parsed = exportedConversation.safeParse(raw);
  if (!parsed.success) {
    const title = tidyTitle((raw as { title?: unknown } | null)?.title, `Conversation ${index + 1}`);
    return { sourceId: `#${index + 1}`, title, skipped: "it is not in the export's conversation shape" };
  }
  const conversation = parsed.data;
  const sourceId = conversation.id;
  const title = tidyTitle(conversation.title, "New chat");
  if (conversation.messages.length > IMPORT_LIMITS.messagesPerConversation)
    return {
      sourceId,
      title,
      skipped: `it has more than ${IMPORT_LIMITS.messagesPerConversation.toLocaleString("en-US")} messages`,
    };
  const nodes: RawNode[] = [];
  let previous: string | null = null;
  for (const value of conversation.messages) {
    const read = exportedMessage.safeParse(value);
    if (!read.success) return { sourceId, title, skipped: "one of its messages is not in the export's shape" };
    const source = read.data;
    if (source.content.length > IMPORT_LIMITS.messageChars)
      return { sourceId, title, skipped: tooLong(source.content.length) };
    const missing = (source.parts ?? []).flatMap((part) => {
      const file = attachmentPart.safeParse(part);
      return file.success ? [file.data.data.name] : [];
    });
    const role = source.role === "user" || source.role === "assistant" ? source.role : null;
    nodes.push({
      id: source.id,
      // An export from before the branches were written out: each message follows the one before.
      parentId: source.parentId === undefined ? previous : source.parentId,
      message: role
        ? { id: source.id, parentId: null, role, text: source.content, createdAt: isoTime(source.createdAt), missing }
        : null,
    });
    previous = source.id;
  }
  const tree = orderTree(nodes, conversation.currentLeafId ?? nodes.at(-1)?.id ?? null);
  if (!tree.ok) return { sourceId, title, skipped: tree.reason };
  if (tree.messages.length === 0) return { sourceId, title, skipped: "it has no messages" };
  return {
    sourceId,
    title,
    conversation: {
      sourceId,
      title,
      createdAt: isoTime(conversation.createdAt) ?? tree.messages[0].createdAt ?? new Date(0).toISOString(),
      updatedAt: isoTime(conversation.updatedAt) ?? new Date(0).toISOString(),
      messages: tree.messages,
      currentLeafId: tree.currentLeafId,
    },
  };
}
