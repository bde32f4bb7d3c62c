import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { ZipEntryData } from "./sniff.server";

/**
 * Reads a PDF or a Word document in a child process of its own
 * (docs/decisions/074-reading-documents-in-a-bounded-process.md): one that is
 * killed when it takes too long or holds too much memory, and whose memory
 * goes back to the operating system when it ends, whatever the parser
 * allocated. A worker thread's heap limit did not bound this: inflated
 * streams are ArrayBuffers, outside the heap, and a thread's memory stays with
 * the server's process.
 *
 * Before the parser sees a document, the child counts what it really inflates
 * to (a ZIP's entries, a PDF's FlateDecode streams), stopping at the limits:
 * declared sizes are never trusted. The server's own event loop inflates
 * nothing.
 */

export type ReaderRefusal = "damaged" | "encrypted" | "timeout" | "too-much-text" | "too-large";

export type ReaderAnswer =
  { ok: true; pages: string[] } | { ok: true; text: string } | { ok: false; reason: ReaderRefusal };

export interface ReaderJob {
  kind: "pdf" | "docx";
  bytes: Uint8Array;
  /** Date.now() after which the reader stops between pages. */
  deadlineAt: number;
  /**
   * A document stops being read once its raw text is twice this (memory stays
   * bounded); the exact limit is applied by the caller, to the tidied text.
   */
  maxChars: number;
  /** A DOCX's entries, checked against their local headers (app/attachments/sniff.server.ts zipEntryData). */
  zipEntries?: ZipEntryData[];
  /** The most a DOCX's entries may inflate to, together. */
  docxMaxUnpackedBytes: number;
}

const MB = 1024 * 1024;

/**
 * The reader's JavaScript heap. Most of what a document costs is outside it
 * (its bytes, inflated streams, fonts), which READER_MAX_RSS_BYTES bounds.
 */
const READER_HEAP_MB = 384;

/**
 * The reader is killed once it holds more than this, and the document is
 * refused as too large. Reading a 200-page PDF stays under 150 MB (pdf.js
 * loaded, the file, its pages' text); two readers at once stay within a small
 * server's memory.
 */
export const READER_MAX_RSS_BYTES = 512 * MB;

/** How often the reader's resident memory is looked at: memory is filled at most ~1 GB/s, so a check every 50 ms overshoots by tens of MB. */
const WATCH_EVERY_MS = 50;

/**
 * The most a PDF's FlateDecode streams (page contents, fonts, object
 * streams; not images, which reading text never decodes) may inflate to,
 * together. A text PDF's streams come to a few MB even for hundreds of pages;
 * 128 MB leaves room for embedded fonts and long documents and stays well
 * under READER_MAX_RSS_BYTES, so a stream bomb is refused before the parser
 * starts rather than when the watchdog kills it.
 */
export const PDF_MAX_INFLATED_BYTES = 128 * MB;

/**
 * The reader's answer for `job`. A refusal (ok: false) is the file's doing;
 * a thrown Error is ours (the reader could not be started).
 */
export function readInChildProcess(job: ReaderJob, deadlineMs: number): Promise<ReaderAnswer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${READER_HEAP_MB}`, "-e", READER_SOURCE], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      // Typed arrays cross as bytes, not as JSON arrays of numbers.
      serialization: "advanced",
      // The reader sees none of the server's secrets (the cast: Remix's types make NODE_ENV required).
      env: {} as NodeJS.ProcessEnv,
    });
    let settled = false;
    let ready = false;
    let stderr = "";
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearInterval(watchdog);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      outcome();
    };
    const refuse = (reason: ReaderRefusal) => settle(() => resolve({ ok: false, reason }));

    const deadline = setTimeout(() => refuse("timeout"), deadlineMs);
    const watchdog = setInterval(() => {
      if (residentBytes(child.pid) > READER_MAX_RSS_BYTES) refuse("too-large");
    }, WATCH_EVERY_MS);

    child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4096)));
    child.on("message", (message: ReaderAnswer | { ready: true }) => {
      if ("ready" in message) ready = true;
      else settle(() => resolve(message));
    });
    child.once("error", (error: Error) =>
      settle(() =>
        reject(new Error(`The ${job.kind} reader could not be started: ${error.message}`, { cause: error })),
      ),
    );
    child.once("exit", (code, signal) =>
      settle(() => {
        if (/heap out of memory|allocation failed/i.test(stderr)) return resolve({ ok: false, reason: "too-large" });
        // The parser died outside its own error handling (an unhandled rejection inside pdf.js, say): the file did that.
        if (ready) return resolve({ ok: false, reason: "damaged" });
        // The parser could not be loaded: ours to fix, not the user's file.
        reject(
          new Error(
            `The ${job.kind} reader stopped (${signal ?? `exit code ${code}`}) before it started: ${stderr.trim().slice(-1000)}`,
          ),
        );
      }),
    );
    child.send({ ...job, pdfMaxInflatedBytes: PDF_MAX_INFLATED_BYTES, resolveFrom: import.meta.url });
  });
}

/** A process's resident memory from /proc (0 where there is no /proc: the heap limit alone then bounds the reader). */
function residentBytes(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const kilobytes = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[1];
    return kilobytes ? Number(kilobytes) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs in the child (CommonJS, as `node -e` evaluates it). A string, not a
 * file of its own: the Remix compiler bundles the server into one
 * build/index.js and would not ship a separate file. It loads the parsers
 * from node_modules, resolved from this module's URL (in the build,
 * build/index.js), so they never load in the server's process: pdf.js's
 * polyfills stay out of its globals too. Kept small and plain: everything
 * that can be done in typed code is done by the caller. The unit tests run
 * this code (they go through extractText), and so do the integration tests
 * against the built server (tests/integration/attachment-bombs.test.ts).
 */
const READER_SOURCE = String.raw`
"use strict";
const zlib = require("node:zlib");

let ready = false;

process.once("message", (job) => {
  main(job).then(
    (answer) => process.send(answer),
    (error) => {
      // Before the parser loaded, a throw is ours (a missing install): said on stderr, for the server's log.
      if (!ready) {
        process.stderr.write(String((error && error.stack) || error));
        process.exit(70);
      }
      process.send({ ok: false, reason: "damaged" });
    },
  );
});
// The server went away: nobody is waiting for the answer.
process.once("disconnect", () => process.exit(0));

async function main(job) {
  // A Buffer arrives as a Buffer, which pdf.js refuses: the same bytes as a plain Uint8Array.
  job.bytes = new Uint8Array(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  const tooLarge = job.kind === "docx" ? await docxUnpacksTooLarge(job) : await pdfInflatesTooLarge(job);
  if (tooLarge) return { ok: false, reason: "too-large" };
  const load = require("node:module").createRequire(job.resolveFrom);
  if (job.kind === "pdf") {
    const unpdf = load("unpdf");
    await unpdf.getResolvedPDFJS();
    announceReady();
    return readPdf(unpdf.getDocumentProxy, job);
  }
  const mammoth = load("mammoth");
  announceReady();
  return readDocx(mammoth, job);
}

/** From here on, the reader dying is the file's doing. */
function announceReady() {
  ready = true;
  process.send({ ready: true });
}

// --- What documents really inflate to -------------------------------------

/**
 * How many bytes data inflates to, counted as it comes out and given up just
 * past limit: nothing is kept. A stream that breaks off counts what came out
 * before (the parser will say whether the file is damaged).
 */
function inflatedSize(data, format, limit) {
  return new Promise((resolve) => {
    const options = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
    const inflater = format === "raw" ? zlib.createInflateRaw(options) : zlib.createInflate(options);
    let size = 0;
    const done = () => {
      inflater.destroy();
      resolve(size);
    };
    inflater.on("data", (chunk) => {
      size += chunk.length;
      if (size > limit) done();
    });
    inflater.once("end", done);
    inflater.once("error", done);
    inflater.end(data);
  });
}

/** A DOCX entry that inflates past its declared size, or entries past the total, make the file too large. */
async function docxUnpacksTooLarge(job) {
  let total = 0;
  for (const entry of job.zipEntries) {
    const room = Math.min(entry.uncompressedSize, job.docxMaxUnpackedBytes - total);
    const data = job.bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
    const size = entry.method === 8 ? await inflatedSize(data, "raw", room) : data.length;
    if (size > room) return true;
    total += size;
  }
  return false;
}

async function pdfInflatesTooLarge(job) {
  let total = 0;
  for (const data of flateStreams(job.bytes)) {
    total += await inflatedSize(data, "zlib", job.pdfMaxInflatedBytes - total);
    if (total > job.pdfMaxInflatedBytes) return true;
  }
  return false;
}

/**
 * The data of every stream whose dictionary names FlateDecode, except
 * images (reading text never decodes them). A stream's data ends at its
 * direct /Length or at "endstream", whichever is further. A stream that
 * hides from this scan (an indirect /Length and a false "endstream", another
 * filter first) is still bounded by the watchdog.
 */
function* flateStreams(bytes) {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  const keyword = /stream(?:\r\n|\r|\n)/g;
  let objectFrom = 0;
  for (let match; (match = keyword.exec(text)); ) {
    if (text.slice(match.index - 3, match.index) === "end") continue;
    const start = match.index + match[0].length;
    const before = text.slice(Math.max(objectFrom, match.index - 65536), match.index);
    const dictionary = before.slice(Math.max(0, before.lastIndexOf("obj")));
    const marker = text.indexOf("endstream", start);
    let end = marker < 0 ? text.length : marker;
    const length = /\/Length\s+(\d+)(?!\d|\s+\d+\s+R)/.exec(dictionary);
    if (length) end = Math.min(text.length, Math.max(end, start + Number(length[1])));
    keyword.lastIndex = end;
    objectFrom = end;
    if (/\/(?:FlateDecode|Fl)\b/.test(dictionary) && !/\/Subtype\s*\/Image\b/.test(dictionary)) yield bytes.subarray(start, end);
  }
}

// --- The parsers -----------------------------------------------------------

async function readPdf(getDocumentProxy, job) {
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

async function readDocx(mammoth, job) {
  let result;
  try {
    result = await mammoth.extractRawText({ buffer: Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength) });
  } catch {
    return { ok: false, reason: "damaged" };
  }
  if (result.value.length > job.maxChars * 2) return { ok: false, reason: "too-much-text" };
  return { ok: true, text: result.value };
}
`;
