import type { Extracted, Segment } from "./document-types";
import { readInChildProcess, type ReaderRefusal } from "./reader-process.server";
import { isEncryptedOfficeFile, readZipDirectory, zipEntryData, type ZipEntryData } from "./sniff.server";

/**
 * The text of an uploaded PDF, Word document or text file, for the model to
 * read and for passages to be cut from (app/attachments/chunks.ts).
 *
 * Documents come from anyone, so parsing them is bounded three ways: in
 * time (a deadline), in memory (a child process killed past a memory limit,
 * after what the file inflates to has been counted, never taken from what it
 * declares: docs/decisions/074-reading-documents-in-a-bounded-process.md),
 * and in output (a cap on characters). Every refusal is an
 * AttachmentError whose message can be shown to the user as it is; anything
 * else that is thrown is our own fault.
 */

export type { Extracted, Segment } from "./document-types";

export type ExtractKind = "pdf" | "docx" | "text";

export type AttachmentErrorReason =
  "damaged" | "encrypted" | "too-large" | "too-much-text" | "timeout" | "no-text" | "not-text";

/** A file the assistant can't read; the message names nothing internal and is fit to show the user. */
export class AttachmentError extends Error {
  constructor(
    message: string,
    readonly reason: AttachmentErrorReason,
  ) {
    super(message);
    this.name = "AttachmentError";
  }
}

export interface ExtractOptions {
  /** How long reading may take, the reader's start included. Default 20 s. */
  deadlineMs?: number;
  /** The most characters of text kept; a document with more is refused. Default 5,000,000. */
  maxChars?: number;
}

const DEFAULT_DEADLINE_MS = 20_000;
const DEFAULT_MAX_CHARS = 5_000_000;

const MB = 1024 * 1024;
/** A DOCX whose entries add up to more than this unpacked, as declared or as really inflated, is refused before the parser opens it. */
export const DOCX_MAX_UNPACKED_BYTES = 100 * MB;
/** An entry that unpacks to over 1 MB at over 100 times its packed size is a bomb, not a document (Word's XML packs ~10:1). */
const DOCX_MAX_RATIO = 100;
const DOCX_RATIO_CHECKED_ABOVE = 1 * MB;

export async function extractText(
  bytes: Uint8Array,
  kind: ExtractKind,
  options: ExtractOptions = {},
): Promise<Extracted> {
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;

  let segments: Segment[];
  let pages: number | undefined;
  if (kind === "text") {
    segments = [{ text: readUtf8(bytes) }];
  } else {
    const answer = await readDocument(kind, bytes, deadlineMs, maxChars);
    if ("pages" in answer) {
      segments = answer.pages.map((text, index) => ({ text: tidy(text), page: index + 1 }));
      pages = answer.pages.length;
    } else {
      segments = [{ text: tidy(answer.text) }];
    }
  }

  const chars = segments.reduce((sum, segment) => sum + segment.text.length, 0);
  if (chars > maxChars) throw tooMuchText(kind, maxChars);
  if (segments.every((segment) => segment.text.trim() === "")) throw new AttachmentError(NO_TEXT[kind], "no-text");

  const text = segments
    .map((segment) => segment.text)
    .filter((pageText) => pageText !== "")
    .join("\n\n");
  return pages === undefined ? { text, segments } : { text, segments, pages };
}

const LABEL: Record<ExtractKind, string> = { pdf: "PDF", docx: "Word document", text: "file" };

const NO_TEXT: Record<ExtractKind, string> = {
  pdf: "This PDF has no text the assistant can read (it may be scanned images).",
  docx: "This Word document has no text the assistant can read.",
  text: "This file has no text the assistant can read.",
};

const damaged = (kind: ExtractKind) =>
  new AttachmentError(`This ${LABEL[kind]} can't be read: the file looks damaged.`, "damaged");
const encrypted = (kind: ExtractKind) =>
  new AttachmentError(
    `This ${LABEL[kind]} is protected with a password. Remove the password, then attach it again.`,
    "encrypted",
  );
const tooLarge = (kind: ExtractKind) =>
  new AttachmentError(`This ${LABEL[kind]} is too large to read once unpacked.`, "too-large");
const tooMuchText = (kind: ExtractKind, maxChars: number) =>
  new AttachmentError(
    `This ${LABEL[kind]} has more text than the assistant can read (over ${maxChars.toLocaleString("en-US")} characters).`,
    "too-much-text",
  );
const tooSlow = () =>
  new AttachmentError(
    "This file took too long to read. Try a smaller file, or paste the part you need into the message.",
    "timeout",
  );

// ---------------------------------------------------------------------------
// Text files, read here: decoding is fast and bounded by the upload's size.

function readUtf8(bytes: Uint8Array): string {
  const notText = new AttachmentError("This file isn't text the assistant can read (it is not UTF-8).", "not-text");
  if (bytes.includes(0)) throw notText;
  let text: string;
  try {
    // fatal: a byte that isn't UTF-8 refuses the file rather than becoming U+FFFD; the decoder drops a BOM.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw notText;
  }
  // Line numbers are cited back to the user ("lines 10–42"), so lines are kept as they are, only their ends made one kind.
  return text.replace(/\r\n?/g, "\n");
}

/**
 * A page's or a Word document's text made storable and tidy: no NUL or other
 * control characters (PostgreSQL refuses NUL; PDFs' text layers hold stray
 * ones), no lone surrogates, one kind of line end, no trailing spaces, at
 * most one blank line in a row.
 */
function tidy(text: string): string {
  return (
    text
      .replace(/^\uFEFF/, "")
      .replace(/\r\n?/g, "\n")
      // eslint-disable-next-line no-control-regex -- removing control characters is the point.
      .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, "")
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
      .replace(/[ \t\u00A0]+$/gm, "")
      .replace(/\n{3,}/g, "\n\n")
      .trim()
  );
}

// ---------------------------------------------------------------------------
// DOCX: the container is checked here, from the ZIP's directory and local
// headers, before anything is inflated; what the entries really inflate to is
// counted by the reader (app/attachments/reader-process.server.ts).

function checkDocxContainer(bytes: Uint8Array): ZipEntryData[] {
  if (isEncryptedOfficeFile(bytes)) throw encrypted("docx");
  const entries = readZipDirectory(bytes);
  if (!entries || !entries.some((entry) => entry.name === "word/document.xml")) throw damaged("docx");
  if (entries.some((entry) => entry.encrypted)) throw encrypted("docx");
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressedSize;
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
    if (entry.uncompressedSize > DOCX_RATIO_CHECKED_ABOVE && ratio > DOCX_MAX_RATIO) throw tooLarge("docx");
  }
  if (total > DOCX_MAX_UNPACKED_BYTES) throw tooLarge("docx");
  const data = zipEntryData(bytes, entries);
  if (!data || !data.every(isReadableEntry)) throw damaged("docx");
  return data;
}

/** Deflated, or stored as it is (its sizes then agree): the only two methods the parser reads. */
function isReadableEntry(entry: ZipEntryData): boolean {
  return entry.method === 8 || (entry.method === 0 && entry.compressedSize === entry.uncompressedSize);
}

async function readDocument(kind: "pdf" | "docx", bytes: Uint8Array, deadlineMs: number, maxChars: number) {
  const zipEntries = kind === "docx" ? checkDocxContainer(bytes) : undefined;
  const job = {
    kind,
    bytes,
    deadlineAt: Date.now() + deadlineMs,
    maxChars,
    zipEntries,
    docxMaxUnpackedBytes: DOCX_MAX_UNPACKED_BYTES,
  };
  const answer = await readInChildProcess(job, deadlineMs);
  if (answer.ok) return answer;
  throw refusal(kind, answer.reason, maxChars);
}

function refusal(kind: ExtractKind, reason: ReaderRefusal, maxChars: number): AttachmentError {
  switch (reason) {
    case "timeout":
      return tooSlow();
    case "too-much-text":
      return tooMuchText(kind, maxChars);
    case "too-large":
      return tooLarge(kind);
    case "encrypted":
      return encrypted(kind);
    case "damaged":
      return damaged(kind);
  }
}
