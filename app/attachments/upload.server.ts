import { json } from "@remix-run/node";
import { getConfig } from "~/config.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import { deleteUnsentAttachment, getAttachmentFile, storeAttachment, type NewChunk } from "~/data/attachments.server";
import { hitRateLimit, secondsInWords } from "~/data/rate-limits.server";
import type { Db } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { AdmissionLimit, admissionRefusal, type AdmissionSlot } from "~/http/admission.server";
import { apiDatabase, apiSignedIn } from "~/http/api-session.server";
import { discardBody, readCapped } from "~/http/body-limit.server";
import { isUuid } from "~/ids/uuid";
import { isStorableText } from "~/text/storable-text";
import { formatBytes, type AttachmentRef } from "~/conversation/attachment-types";
import { chunkDocument } from "./chunks";
import { AttachmentError, extractText, type Extracted } from "./extract.server";
import { attachmentLimitsFor, type AttachmentLimits } from "./limits.server";
import { embedPassages } from "./embeddings.server";
import { ReadingQueue } from "./reading-queue.server";
import { DOCX_MEDIA_TYPE, sniffFile, type SniffedKind } from "./sniff.server";

/**
 * POST /api/attachments: the file's bytes as the body (so the browser can
 * show the upload's progress), its name in the X-File-Name header,
 * percent-encoded UTF-8 — never in the URL, which access logs print (a name
 * in the query string is ignored). GET /api/attachments/<id>: the file, to
 * its owner only; DELETE /api/attachments/<id>: one not sent yet.
 *
 *   201 stored · 400 unreadable or unsupported (nothing stored) · 401 not signed in
 *   404 no such file of yours · 413 larger than the role allows, or storage full
 *   429 uploading too fast, or too many of the account's documents waiting to be read
 *   503 a store is unreachable, or too many documents waiting to be read (Retry-After), or too many
 *   uploads being handled on this instance (UPLOAD_ADMISSION_LIMIT; at once, with Retry-After, docs/decisions/096)
 *
 * The body is counted while it streams in and cut off at the role's file size
 * limit, whatever Content-Length says. The kind is read from the content; a
 * document is turned into text and passages before anything is stored, within
 * a deadline, and stored with them in one transaction: nothing half-stored.
 */

const PRIVATE = { "Cache-Control": "private, no-store" };

/** Longest the server spends turning one document into text. */
export const EXTRACT_DEADLINE_MS = 20_000;

/** Longest wait for a document's passages' vectors; past it the document is stored without them. */
const EMBED_DEADLINE_MS = 30_000;

/** The longest file name kept (the rest is cut; the extension is kept). */
const NAME_MAX = 200;

const MINUTE = 60;

/**
 * PDFs and Word documents waiting to be read in this process
 * (docs/decisions/074-reading-documents-in-a-bounded-process.md). Each reader
 * is a child process that may use a core and up to 512 MB, so two at once.
 * Ten documents an account: a message's worth at the default
 * ATTACHMENTS_PER_MESSAGE, since the composer uploads all of a message's files
 * at once. 32 waiting, and 256 MB of them (uploads wait in memory), keep the
 * longest wait and the memory held bounded.
 */
const DOCUMENTS_PER_ACCOUNT = 10;
const readingQueue = new ReadingQueue({
  parallel: 2,
  perAccount: DOCUMENTS_PER_ACCOUNT,
  maxWaiting: 32,
  maxWaitingBytes: 256 * 1024 * 1024,
});

/** What a full reading queue asks the client to wait: about one document's read. */
const QUEUE_FULL_RETRY_SECONDS = 10;

/** Uploads being handled on this instance (UPLOAD_ADMISSION_LIMIT). */
const uploadsBeingHandled = new AdmissionLimit("upload_admission", () => getConfig().admission.uploads);
export const UPLOADS_BUSY =
  "Not uploaded: too many files are being uploaded right now. Remove it and attach it again in a moment.";

export async function uploadAttachment(request: Request): Promise<Response> {
  // Before the session check's remote calls (docs/decisions/096): an upload over the instance's
  // limit is refused at once. An admitted one keeps its slot to its answer (all of it is backend
  // work or its bytes held in memory), but for a document's turn in the reading queue.
  const slot = uploadsBeingHandled.tryEnter();
  if (!slot) return unread(request, admissionRefusal(UPLOADS_BUSY));
  try {
    return await receiveUpload(request, slot);
  } finally {
    slot.release();
  }
}

async function receiveUpload(request: Request, slot: AdmissionSlot): Promise<Response> {
  const who = await signedIn(request);
  if (who instanceof Response) return unread(request, who);
  const limits = attachmentLimitsFor(who);
  const name = fileName(headerFileName(request));
  const db = await database();
  if (db instanceof Response) return unread(request, db);
  const tooFast = await refuseOverRateLimit(db, who.user.uid, limits);
  if (tooFast) return unread(request, tooFast);

  let bytes: Uint8Array | undefined;
  try {
    bytes = await readCapped(request, limits.maxFileBytes);
  } catch {
    return json({ error: "The upload was interrupted. Please try again." }, { status: 400 });
  }
  if (!bytes) {
    return json(
      { error: `"${name}" is too large: files can be at most ${formatBytes(limits.maxFileBytes)} on your plan.` },
      { status: 413, headers: PRIVATE },
    );
  }

  const sniffed = sniffFile(bytes, name);
  if (!sniffed.ok) return json({ error: sniffed.error }, { status: 400, headers: PRIVATE });

  let text: string | undefined;
  let pages: number | undefined;
  let chunks: NewChunk[] = [];
  if (sniffed.kind !== "image") {
    try {
      // A document waits for a reader in the reading queue, bounded on its own (docs/decisions/074):
      // it gives its slot back, so text and images still go in while documents wait.
      if (sniffed.kind !== "text") slot.release();
      const extracted = await readText(who.user.uid, bytes, sniffed.kind);
      if (extracted instanceof Response) return extracted;
      text = extracted.text;
      pages = extracted.pages;
      chunks = chunkDocument(extracted);
      // By meaning too, when the provider has an embeddings model; without it (or if it fails) by words alone.
      const vectors = await embedPassages(
        chunks.map((chunk) => chunk.text),
        EMBED_DEADLINE_MS,
      );
      if (vectors) chunks = chunks.map((chunk, index) => ({ ...chunk, embedding: vectors[index] }));
    } catch (error) {
      if (error instanceof AttachmentError)
        return json({ error: `"${name}": ${error.message}` }, { status: 400, headers: PRIVATE });
      throw error;
    }
  }

  const id = crypto.randomUUID();
  try {
    const stored = await storeAttachment(
      db,
      { id, uid: who.user.uid, name, kind: sniffed.kind, mediaType: sniffed.mediaType, bytes, pages, text, chunks },
      limits.storageBytes,
    );
    if (!stored.ok) {
      return json(
        {
          error: `Your file storage is full (${formatBytes(stored.usedBytes)} of ${formatBytes(limits.storageBytes)}). Delete conversations with files you no longer need, then try again.`,
        },
        { status: 413, headers: PRIVATE },
      );
    }
  } catch (error) {
    if (isAccountDeleted(error)) return json({ error: "This account has been deleted." }, { status: 401 });
    logBackendFault("postgres", "storing an attachment", error);
    return unavailable();
  }
  const attachment: AttachmentRef = {
    id,
    name,
    kind: sniffed.kind,
    mediaType: sniffed.mediaType,
    size: bytes.byteLength,
    pages: pages ?? null,
  };
  return json({ attachment }, { status: 201, headers: PRIVATE });
}

/**
 * A text file is decoded here at once (cheap, and bounded by the upload's
 * size); a PDF or a Word document waits its turn in the reading queue, or is
 * refused with the reason the queue gives.
 */
async function readText(
  uid: string,
  bytes: Uint8Array,
  kind: Exclude<SniffedKind, "image">,
): Promise<Extracted | Response> {
  if (kind === "text") return extractText(bytes, kind);
  const turn = await readingQueue.run(uid, bytes.byteLength, () =>
    extractText(bytes, kind, { deadlineMs: EXTRACT_DEADLINE_MS }),
  );
  if (turn.ok) return turn.value;
  if (turn.refusal === "account-busy") {
    return json(
      {
        error: `You have ${DOCUMENTS_PER_ACCOUNT} documents being read already. Wait until they are ready, then attach the rest.`,
      },
      { status: 429, headers: { ...PRIVATE, "Retry-After": String(QUEUE_FULL_RETRY_SECONDS) } },
    );
  }
  return json(
    { error: "The assistant is busy reading other documents. Please try again in a few seconds." },
    { status: 503, headers: { ...PRIVATE, "Retry-After": String(QUEUE_FULL_RETRY_SECONDS) } },
  );
}

/**
 * Uploads per account per minute, counted in PostgreSQL (shared by every
 * instance): three messages' worth of files at the role's
 * ATTACHMENTS_PER_MESSAGE, and never fewer than 30.
 */
function uploadsPerMinute(limits: AttachmentLimits): number {
  return Math.max(30, 3 * limits.perMessage);
}

/** Undefined when allowed; otherwise the 429 (or the 503 when the count can't be kept). */
async function refuseOverRateLimit(db: Db, uid: string, limits: AttachmentLimits): Promise<Response | undefined> {
  let result;
  try {
    result = await withDeadline(
      "postgres",
      getConfig().backendTimeoutMs,
      hitRateLimit(db, `upload:uid:${uid}`, uploadsPerMinute(limits), MINUTE),
    );
  } catch (error) {
    logBackendFault("postgres", "counting an upload", error);
    return unavailable();
  }
  if (result.allowed) return undefined;
  return json(
    {
      error: `You're attaching files faster than allowed. Please wait ${secondsInWords(result.retryAfterSeconds)} and try again.`,
    },
    { status: 429, headers: { ...PRIVATE, "Retry-After": String(result.retryAfterSeconds) } },
  );
}

/** An answer given before the file was read: the file is read and dropped meanwhile, so a client still sending it gets the answer, not a reset. */
export function unread(request: Request, answer: Response): Response {
  discardBody(request);
  return answer;
}

/** X-File-Name, percent-encoded UTF-8 (header values are bytes; the name may be any text); as sent when it isn't valid percent-encoding. */
export function headerFileName(request: Request): string | null {
  const raw = request.headers.get("X-File-Name");
  if (raw === null) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** GET /api/attachments/<id>: the file, to its owner (fileResponse). */
export async function downloadAttachment(request: Request, id: string | undefined): Promise<Response> {
  const who = await signedIn(request);
  if (who instanceof Response) return who;
  if (!isUuid(id)) return notFound();
  const db = await database();
  if (db instanceof Response) return db;
  let file;
  try {
    file = await getAttachmentFile(db, who.user.uid, id);
  } catch (error) {
    logBackendFault("postgres", "reading an attachment", error);
    return unavailable();
  }
  if (!file) return notFound();
  return fileResponse(file);
}

/**
 * A stored file as a download (the owner's route, and a share link's): never
 * rendered by the browser as a page, not sniffed into another type, running
 * and loading nothing even when opened directly. Images still show in an <img>.
 */
export function fileResponse(
  file: { name: string; mediaType: string; kind: string; bytes: Buffer },
  headers: HeadersInit = {},
): Response {
  const type = file.kind === "text" ? "text/plain; charset=utf-8" : file.mediaType;
  return new Response(new Uint8Array(file.bytes), {
    headers: {
      ...headers,
      "Content-Type": type,
      "Content-Length": String(file.bytes.byteLength),
      "Content-Disposition": contentDisposition(downloadName(file)),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; sandbox",
      "Cross-Origin-Resource-Policy": "same-origin",
    },
  });
}

export async function removeUnsentAttachment(request: Request, id: string | undefined): Promise<Response> {
  const who = await signedIn(request);
  if (who instanceof Response) return who;
  if (!isUuid(id)) return notFound();
  const db = await database();
  if (db instanceof Response) return db;
  try {
    if (!(await deleteUnsentAttachment(db, who.user.uid, id))) {
      return json(
        { error: "There is no such file waiting to be sent (a sent file goes with its message)." },
        { status: 404, headers: PRIVATE },
      );
    }
  } catch (error) {
    logBackendFault("postgres", "removing an attachment", error);
    return unavailable();
  }
  return json({ deleted: true }, { headers: PRIVATE });
}

/**
 * The name as given, without a path, unstorable text, control characters or
 * invisible format characters: a right-to-left override makes
 * "invoice\u202Egpj.exe" show as "invoiceexe.jpg", and zero-width characters
 * make two names look the same. The extension survives shortening.
 */
export function fileName(raw: string | null): string {
  let name = (raw ?? "")
    .split(/[/\\]/)
    .pop()!
    // Cc: C0 and C1 controls and DEL; Cf: bidirectional controls, zero-width characters, BOM; Zl, Zp: line and paragraph separators.
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "")
    .trim();
  if (!isStorableText(name)) name = "";
  if (name.length > NAME_MAX) {
    const dot = name.lastIndexOf(".");
    const extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : "";
    name = name.slice(0, NAME_MAX - extension.length) + extension;
  }
  return name || "file";
}

/**
 * Extensions a downloaded text file may keep: formats that desktops open in a
 * viewer or an editor. Anything else, and a name without an extension, gets
 * ".txt" added: a text file named .html, .svg, .js, .hta, .bat, .cmd, .ps1 or
 * .vbs would run or render when opened from the downloads folder, and
 * Windows runs .py and .jsx files with an installed interpreter. Text is
 * always served as text/plain (fileResponse); this is about the saved file.
 */
const HARMLESS_TEXT_EXTENSIONS = new Set([
  ...[
    "txt",
    "text",
    "md",
    "markdown",
    "csv",
    "tsv",
    "json",
    "jsonl",
    "log",
    "yaml",
    "yml",
    "toml",
    "ini",
    "cfg",
    "conf",
  ],
  ...["tex", "bib", "rst", "adoc", "diff", "patch", "srt", "vtt", "sql", "css", "scss"],
  ...["c", "h", "cc", "cpp", "hpp", "cs", "java", "kt", "go", "rs", "swift", "ts"],
]);

/** Extensions that match each kind read from the content; the first is the one added. */
const KIND_EXTENSIONS: Record<string, string[]> = {
  "application/pdf": ["pdf"],
  [DOCX_MEDIA_TYPE]: ["docx"],
  "image/png": ["png"],
  "image/jpeg": ["jpg", "jpeg", "jpe", "jfif"],
  "image/webp": ["webp"],
  "image/gif": ["gif"],
};

/**
 * The name a file is saved under: the stored name, with an extension added
 * when its own would make the saved file something else than what the
 * content is (a text file named page.html, a PDF named page.html). Names are
 * stored as given, so files stored before this rule are served safely too.
 */
export function downloadName(file: { name: string; kind: string; mediaType: string }): string {
  const dot = file.name.lastIndexOf(".");
  const extension = dot > 0 ? file.name.slice(dot + 1).toLowerCase() : "";
  if (file.kind === "text") return HARMLESS_TEXT_EXTENSIONS.has(extension) ? file.name : `${file.name}.txt`;
  const matching = KIND_EXTENSIONS[file.mediaType];
  if (!matching || matching.includes(extension)) return file.name;
  return `${file.name}.${matching[0]}`;
}

/** RFC 6266: an ASCII fallback and the UTF-8 name. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

const signedIn = apiSignedIn;
const database = () => apiDatabase("attachments", unavailable);

const notFound = () => json({ error: "There is no such file of yours." }, { status: 404, headers: PRIVATE });
const unavailable = () =>
  json({ error: "Files can't be reached right now. Please try again shortly." }, { status: 503 });
