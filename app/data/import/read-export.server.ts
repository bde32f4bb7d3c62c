import { unzipSync } from "fflate";
import { looksLikeChatgpt, readChatgptConversation } from "./chatgpt.server";
import { looksLikeClaude, readClaudeConversation } from "./claude.server";
import { IMPORT_LIMITS, storableItem, type ReadExport, type ReadItem } from "./normalized.server";
import { looksLikeNuvara, nuvaraExport, readNuvaraConversation } from "./nuvara.server";

/**
 * Reads an uploaded export, all of it, before anything is stored
 * (docs/decisions/104): a zip (only its conversations file is unzipped, and
 * only when the zip's directory and that file are within bounds) or a JSON
 * file; the format told by its shape. A file that cannot be read as a whole
 * is refused with an ImportFileError saying why; a conversation that cannot
 * be read is a skipped item, saying why, and the others go on.
 */

export class ImportFileError extends Error {}

const MB = 1024 * 1024;

export function readExport(bytes: Uint8Array): ReadExport {
  const json = isZip(bytes) ? conversationsFromZip(bytes) : bytes;
  if (!looksLikeJson(json))
    throw new ImportFileError(
      "This file is neither a zip nor a JSON file. Upload the export's .zip or its conversations.json.",
    );
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: false }).decode(json));
  } catch {
    throw new ImportFileError("This file is not valid JSON: it may be cut short or damaged. Nothing was imported.");
  }
  return readConversations(data);
}

/** The conversations of a parsed export, in its format. */
export function readConversations(data: unknown): ReadExport {
  if (looksLikeNuvara(data)) {
    const parsed = nuvaraExport.safeParse(data);
    if (!parsed.success)
      throw new ImportFileError("This Nuvara² export is not complete: its conversations are missing.");
    return { source: "nuvara", items: readAll(parsed.data.conversations, readNuvaraConversation) };
  }
  if (Array.isArray(data) && data.length === 0) throw new ImportFileError("This export holds no conversations.");
  if (looksLikeChatgpt(data)) return { source: "chatgpt", items: readAll(data as unknown[], readChatgptConversation) };
  if (looksLikeClaude(data)) return { source: "claude", items: readAll(data as unknown[], readClaudeConversation) };
  throw new ImportFileError(
    "This file is not an export this app can read: upload ChatGPT's or Claude.ai's conversations.json (or the zip it came in), or a Nuvara² account export.",
  );
}

function readAll(list: unknown[], read: (raw: unknown, index: number) => ReadItem): ReadItem[] {
  if (list.length > IMPORT_LIMITS.conversations)
    throw new ImportFileError(
      `This export holds ${list.length.toLocaleString("en-US")} conversations; at most ${IMPORT_LIMITS.conversations.toLocaleString("en-US")} can be imported at once.`,
    );
  return list.map((raw, index) => storableItem(read(raw, index)));
}

function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

function looksLikeJson(bytes: Uint8Array): boolean {
  for (let at = 0; at < Math.min(bytes.length, 1024); at += 1) {
    const byte = bytes[at];
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    // A UTF-8 byte order mark.
    if (at === 0 && byte === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      at = 2;
      continue;
    }
    return byte === 0x5b || byte === 0x7b;
  }
  return false;
}

/**
 * The zip's conversations.json (the shallowest one; an account export's JSON
 * file when it is that). The directory is read first: too many entries, or a
 * file that says it unzips past the bound, refuses the zip before any
 * inflating; the inflated output is bounded by the size it declared
 * (a file lying about it comes out cut short, and fails as JSON).
 */
function conversationsFromZip(bytes: Uint8Array): Uint8Array {
  let entries = 0;
  let chosen: string | null = null;
  let tooBig = false;
  const wanted = (name: string) =>
    /(^|\/)conversations\.json$/i.test(name) || /(^|\/)nuvara-data-[^/]*\.json$/i.test(name);
  try {
    // First pass: the directory only (the filter takes nothing).
    unzipSync(bytes, {
      filter: (file) => {
        entries += 1;
        if (entries > IMPORT_LIMITS.zipEntries)
          throw new ImportFileError(
            `This zip has more than ${IMPORT_LIMITS.zipEntries.toLocaleString("en-US")} files; it is not an export this app reads.`,
          );
        if (wanted(file.name) && (chosen === null || depth(file.name) < depth(chosen))) {
          chosen = file.name;
          tooBig = file.originalSize > IMPORT_LIMITS.jsonBytes;
        }
        return false;
      },
    });
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError("This zip file is damaged and cannot be read. Nothing was imported.");
  }
  if (chosen === null)
    throw new ImportFileError("This zip has no conversations.json: it is not a ChatGPT or Claude.ai export.");
  if (tooBig)
    throw new ImportFileError(
      `The conversations file in this zip unzips to more than ${IMPORT_LIMITS.jsonBytes / MB} MB; it cannot be imported.`,
    );
  try {
    const name: string = chosen;
    const files = unzipSync(bytes, { filter: (file) => file.name === name });
    return files[name];
  } catch {
    throw new ImportFileError("This zip file is damaged and cannot be read. Nothing was imported.");
  }
}

function depth(name: string): number {
  return name.split("/").length;
}
