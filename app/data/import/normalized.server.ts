/**
 * A conversation read from an export, in the shape every format is turned
 * into before it is stored (docs/decisions/104). Messages come parents first,
 * siblings in the order they were written: stored in this order, the latest
 * version of a message is the last of its siblings, as in a chat made here.
 */

export type ImportSource = "chatgpt" | "claude" | "nuvara";

export const SOURCE_NAMES: Record<ImportSource, string> = {
  chatgpt: "ChatGPT",
  claude: "Claude.ai",
  nuvara: "Nuvara² account export",
};

export interface ImportedMessage {
  /** The message's id in the export. */
  id: string;
  /** The kept message it follows, null for a first message. */
  parentId: string | null;
  role: "user" | "assistant";
  text: string;
  /** ISO time, or null when the export does not say. */
  createdAt: string | null;
  /** Files the message had whose content the export does not hold, by name. */
  missing: string[];
}

export interface ImportedConversation {
  sourceId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  messages: ImportedMessage[];
  /** The last message of the branch that was shown; null: the latest. */
  currentLeafId: string | null;
}

/** One conversation of an export: ready to store, or refused as read, with why (in words fit to show). */
export type ReadItem =
  | { sourceId: string; title: string; conversation: ImportedConversation }
  | { sourceId: string; title: string; skipped: string };

export interface ReadExport {
  source: ImportSource;
  items: ReadItem[];
}

/** The bounds an export is read within (docs/decisions/104). */
export const IMPORT_LIMITS = {
  /** The upload itself. */
  uploadBytes: 100 * 1024 * 1024,
  /** Entries in a zip's directory. */
  zipEntries: 20_000,
  /** The conversations file once unzipped. */
  jsonBytes: 400 * 1024 * 1024,
  conversations: 10_000,
  messagesPerConversation: 20_000,
  /** One message's text, in characters. */
  messageChars: 1_000_000,
  titleChars: 300,
} as const;

/** Bytes a conversation takes in storage: its title and messages' text, as UTF-8. */
export function conversationBytes(conversation: ImportedConversation): number {
  let bytes = Buffer.byteLength(conversation.title);
  for (const message of conversation.messages) bytes += Buffer.byteLength(message.text);
  return bytes;
}

/** A title as stored: one line, bounded, never empty. */
export function tidyTitle(title: unknown, fallback = "Imported chat"): string {
  const text = typeof title === "string" ? title.replace(/\s+/g, " ").trim() : "";
  return (text || fallback).slice(0, IMPORT_LIMITS.titleChars);
}

/** An ISO time from unix seconds or a date string; null when it is neither. */
export function isoTime(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return new Date(value * 1000).toISOString();
  if (typeof value === "string") {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
  }
  return null;
}

// A NUL, or a lone UTF-16 surrogate: PostgreSQL cannot store them (app/text/storable-text.ts).
// eslint-disable-next-line no-control-regex -- finding the NUL control character is the point.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as it can be stored: what PostgreSQL cannot hold becomes U+FFFD (an export may hold a cut character). */
export function storable(text: string): string {
  return text.replace(UNSTORABLE, "\uFFFD");
}

/** The item with every text it stores made storable. */
export function storableItem(item: ReadItem): ReadItem {
  const base = { sourceId: storable(item.sourceId), title: storable(item.title) };
  if ("skipped" in item) return { ...base, skipped: item.skipped };
  const conversation = item.conversation;
  return {
    ...base,
    conversation: {
      ...conversation,
      sourceId: base.sourceId,
      title: base.title,
      messages: conversation.messages.map((message) => ({
        ...message,
        text: storable(message.text),
        missing: message.missing.map(storable),
      })),
    },
  };
}
