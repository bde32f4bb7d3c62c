import { Worker } from "node:worker_threads";
import type { Extracted, Segment } from "./document-types";
import { isEncryptedOfficeFile, readZipDirectory } from "./sniff.server";

/**
 * The text of an uploaded PDF, Word document or text file, for the model to
 * read and for passages to be cut from (app/attachments/chunks.ts).
 *
 * Documents come from anyone, so parsing them is bounded three ways: in
 * time (a deadline), in memory (a worker thread with its own heap limit; a
 * DOCX's unpacked size is checked from its ZIP directory before anything is
 * inflated), and in output (a cap on characters). Every refusal is an
 * AttachmentError whose message can be shown to the user as it is; anything
 * else that is thrown is our own fault.
 */

export type { Extracted, Segment } from "./document-types";

export type ExtractKind = "pdf" | "docx" | "text";

export type AttachmentErrorReason = "damaged" | "encrypted" | "too-large" | "too-much-text" | "timeout" | "no-text" | "not-text";

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
  /** How long reading may take, worker start included. Default 20 s. */
  deadlineMs?: number;
  /** The most characters of text kept; a document with more is refused. Default 5,000,000. */
  maxChars?: number;
}

const DEFAULT_DEADLINE_MS = 20_000;
const DEFAULT_MAX_CHARS = 5_000_000;

const MB = 1024 * 1024;
/** A DOCX whose entries add up to more than this unpacked is refused before it is opened. */
export const DOCX_MAX_UNPACKED_BYTES = 100 * MB;
/** An entry that unpacks to over 1 MB at over 100 times its packed size is a bomb, not a document (Word's XML packs ~10:1). */
const DOCX_MAX_RATIO = 100;
const DOCX_RATIO_CHECKED_ABOVE = 1 * MB;

/**
 * The parser's heap. A document that needs more (a ZIP whose directory lied
 * about its sizes, a pathological PDF) ends its worker with an out-of-memory
 * error, which is reported as "too large": the server's own heap is untouched.
 */
const WORKER_HEAP_MB = 512;

export async function extractText(bytes: Uint8Array, kind: ExtractKind, options: ExtractOptions = {}): Promise<Extracted> {
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;

  let segments: Segment[];
  let pages: number | undefined;
  if (kind === "text") {
    segments = [{ text: readUtf8(bytes) }];
  } else {
    if (kind === "docx") checkDocxContainer(bytes);
    const answer = await parseInWorker({ kind, bytes, deadlineAt: Date.now() + deadlineMs, maxChars }, deadlineMs);
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

const damaged = (kind: ExtractKind) => new AttachmentError(`This ${LABEL[kind]} can't be read: the file looks damaged.`, "damaged");
const encrypted = (kind: ExtractKind) =>
  new AttachmentError(`This ${LABEL[kind]} is protected with a password. Remove the password, then attach it again.`, "encrypted");
const tooLarge = (kind: ExtractKind) => new AttachmentError(`This ${LABEL[kind]} is too large to read once unpacked.`, "too-large");
const tooMuchText = (kind: ExtractKind, maxChars: number) =>
  new AttachmentError(
    `This ${LABEL[kind]} has more text than the assistant can read (over ${maxChars.toLocaleString("en-US")} characters).`,
    "too-much-text",
  );
const tooSlow = () =>
  new AttachmentError("This file took too long to read. Try a smaller file, or paste the part you need into the message.", "timeout");

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
// DOCX: the container is checked here, from the ZIP's central directory, before the parser inflates anything.

function checkDocxContainer(bytes: Uint8Array): void {
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
}

// ---------------------------------------------------------------------------
// The worker

interface WorkerJob {
  kind: "pdf" | "docx";
  bytes: Uint8Array;
  /** Date.now() after which the worker stops between pages. */
  deadlineAt: number;
  /**
   * A PDF stops being read once its raw text is twice this (memory stays
   * bounded); the exact limit is applied here, to the tidied text, which drops
   * trailing spaces and stray control characters.
   */
  maxChars: number;
}

type WorkerAnswer = { ok: true; pages: string[] } | { ok: true; text: string } | { ok: false; reason: "damaged" | "encrypted" | "timeout" | "too-much-text" };

/** Sent once the parser has loaded: from then on, a crash is the file's doing. */
type WorkerReady = { ready: true };

/**
 * Parses in a worker thread that is terminated when the deadline passes, so
 * the deadline holds even while the parser is busy in a synchronous loop
 * (a check between pages alone can't interrupt one page). The worker's code is
 * a string evaluated in the worker, not a file of its own: the Remix
 * compiler bundles the server into one build/index.js and would not ship a
 * separate worker file. That code loads the parsers from node_modules
 * (resolved from this module's URL, which in the build is build/index.js),
 * so the parsers never load in the server's own thread: pdf.js's polyfills
 * stay out of its globals too.
 */
function parseInWorker(job: WorkerJob, deadlineMs: number): Promise<Exclude<WorkerAnswer, { ok: false }>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // The bytes are copied, not transferred: the caller still stores them.
      workerData: { ...job, resolveFrom: import.meta.url },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      // The parser sees none of the server's secrets.
      env: {},
    });
    let settled = false;
    let ready = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(() => settle(() => reject(tooSlow())), deadlineMs);
    worker.on("message", (answer: WorkerAnswer | WorkerReady) => {
      if ("ready" in answer) {
        ready = true;
        return;
      }
      settle(() => {
        if (answer.ok) return resolve(answer);
        if (answer.reason === "timeout") return reject(tooSlow());
        if (answer.reason === "too-much-text") return reject(tooMuchText(job.kind, job.maxChars));
        reject(answer.reason === "encrypted" ? encrypted(job.kind) : damaged(job.kind));
      });
    });
    worker.once("error", (error: Error & { code?: string }) =>
      settle(() => {
        if (error.code === "ERR_WORKER_OUT_OF_MEMORY") return reject(tooLarge(job.kind));
        // The parser threw outside its own error handling (an unhandled rejection inside pdf.js, say): the file did that.
        if (ready) return reject(damaged(job.kind));
        // The parser could not be loaded: ours to fix, not the user's file.
        reject(new Error(`The ${job.kind} reader failed to start: ${error.message}`, { cause: error }));
      }),
    );
    worker.once("exit", (code) =>
      settle(() => reject(ready ? damaged(job.kind) : new Error(`The ${job.kind} reader stopped (exit code ${code}) before it started`))),
    );
  });
}

/**
 * Runs in the worker (CommonJS, as Node evaluates a string). Kept small and
 * plain: everything that can be done in typed code is done above. A parser's
 * error becomes a reason; the unit tests run this code (they go through
 * extractText), and the bundled build was checked to run it too.
 */
const WORKER_SOURCE = String.raw`
"use strict";
const { parentPort, workerData: job } = require("node:worker_threads");
const load = require("node:module").createRequire(job.resolveFrom);

async function readPdf(getDocumentProxy) {
  let document;
  try {
    // isEvalSupported: false: pdf.js never compiles code from a font, whatever the file holds.
    document = await getDocumentProxy(job.bytes, { verbosity: 0, isEvalSupported: false });
  } catch (error) {
    return { ok: false, reason: error && error.name === "PasswordException" ? "encrypted" : "damaged" };
  }
  const pages = [];
  let chars = 0;
  try {
    for (let number = 1; number <= document.numPages; number++) {
      if (Date.now() > job.deadlineAt) return { ok: false, reason: "timeout" };
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      let text = "";
      for (const item of content.items) {
        if (typeof item.str === "string") text += item.str + (item.hasEOL ? "\n" : "");
      }
      page.cleanup();
      chars += text.length;
      if (chars > job.maxChars * 2) return { ok: false, reason: "too-much-text" };
      pages.push(text);
    }
  } catch {
    return { ok: false, reason: "damaged" };
  }
  return { ok: true, pages };
}

async function readDocx(mammoth) {
  try {
    const result = await mammoth.extractRawText({ buffer: Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength) });
    return { ok: true, text: result.value };
  } catch {
    return { ok: false, reason: "damaged" };
  }
}

// Loading happens outside the parsers' error handling: a missing or broken
// install fails the worker ("error" before "ready"), and is never blamed on the file.
async function main() {
  if (job.kind === "pdf") {
    const unpdf = load("unpdf");
    await unpdf.getResolvedPDFJS();
    parentPort.postMessage({ ready: true });
    return readPdf(unpdf.getDocumentProxy);
  }
  const mammoth = load("mammoth");
  parentPort.postMessage({ ready: true });
  return readDocx(mammoth);
}

main().then((answer) => parentPort.postMessage(answer));
`;
