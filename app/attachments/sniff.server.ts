/**
 * What an uploaded file is, read from its bytes. The name is the user's to
 * choose (a PNG renamed report.pdf is still a PNG), so it decides only which
 * harmless text type a text file is labelled with: never whether the bytes
 * are parsed as a PDF or a Word document, and never a type a browser would
 * run (an .html file is text/plain).
 */

export type SniffedKind = "image" | "pdf" | "docx" | "text";

export type Sniffed = { ok: true; kind: SniffedKind; mediaType: string } | { ok: false; error: string };

export const DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

export function sniffFile(bytes: Uint8Array, name: string): Sniffed {
  if (bytes.byteLength === 0) return { ok: false, error: "This file is empty." };

  const image = imageType(bytes);
  if (image) return { ok: true, kind: "image", mediaType: image };

  if (isPdf(bytes)) return { ok: true, kind: "pdf", mediaType: "application/pdf" };

  if (startsWith(bytes, ZIP_LOCAL_HEADER) || startsWith(bytes, ZIP_EMPTY)) {
    const entries = readZipDirectory(bytes);
    if (!entries) return { ok: false, error: `${quoted(name)} looks damaged and can't be read.` };
    if (isDocx(entries)) {
      // Legacy ZIP encryption: Word never writes it, but the parser could not read it either.
      if (entries.some((entry) => entry.encrypted)) return { ok: false, error: passwordError(name) };
      return { ok: true, kind: "docx", mediaType: DOCX_MEDIA_TYPE };
    }
    return { ok: false, error: unsupported(name) };
  }

  // A password-protected .docx is not a ZIP: Office wraps it, encrypted, in an OLE file.
  if (isEncryptedOfficeFile(bytes)) return { ok: false, error: passwordError(name) };

  if (isText(bytes)) return { ok: true, kind: "text", mediaType: textMediaType(bytes, name) };

  return { ok: false, error: unsupported(name) };
}

// ---------------------------------------------------------------------------
// Magic bytes

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87A = ascii("GIF87a");
const GIF89A = ascii("GIF89a");
const RIFF = ascii("RIFF");
const WEBP = ascii("WEBP");
const ZIP_LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY = [0x50, 0x4b, 0x05, 0x06];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function imageType(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, PNG)) return "image/png";
  if (startsWith(bytes, JPEG)) return "image/jpeg";
  if (startsWith(bytes, GIF87A) || startsWith(bytes, GIF89A)) return "image/gif";
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return "image/webp";
  return undefined;
}

/**
 * "%PDF-" and a version digit within the first 1024 bytes, where readers
 * accept it (some producers put junk before it). The digit keeps a text file
 * that merely mentions "%PDF-" near its start from being taken for a PDF.
 */
function isPdf(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.byteLength, 1024) - PDF_HEADER.length;
  for (let at = 0; at <= end; at++) {
    if (startsWith(bytes, PDF_HEADER, at)) {
      const digit = bytes[at + PDF_HEADER.length];
      return digit >= 0x30 && digit <= 0x39;
    }
  }
  return false;
}
const PDF_HEADER = ascii("%PDF-");

/** An OOXML file encrypted with a password: an OLE compound file holding an "EncryptedPackage" stream. */
export function isEncryptedOfficeFile(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, OLE)) return false;
  // The stream's name is in the OLE directory, UTF-16LE.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(ENCRYPTED_PACKAGE);
}
const ENCRYPTED_PACKAGE = Buffer.from("EncryptedPackage", "utf16le");

function isDocx(entries: ZipEntry[]): boolean {
  const names = new Set(entries.map((entry) => entry.name));
  return names.has("word/document.xml") && names.has("[Content_Types].xml");
}

// ---------------------------------------------------------------------------
// Text

/** Valid UTF-8 (a BOM is fine) with no NUL: binary formats nearly always hold a NUL or an invalid sequence. */
function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Only types no browser runs or renders as a page: everything that is not
 * Markdown, CSV or JSON (source code, HTML, SVG, XML…) is text/plain.
 */
function textMediaType(bytes: Uint8Array, name: string): string {
  switch (extension(name)) {
    case "md":
    case "markdown":
      return "text/markdown";
    case "csv":
      return "text/csv";
    case "json":
      return parsesAsJson(bytes) ? "application/json" : "text/plain";
    default:
      return "text/plain";
  }
}

function parsesAsJson(bytes: Uint8Array): boolean {
  try {
    // The default decoder drops a BOM, which JSON.parse would refuse.
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

function extension(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot >= 0 ? name.slice(dot + 1).toLowerCase() : "";
}

// ---------------------------------------------------------------------------
// ZIP central directory

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Legacy ZIP ("traditional PKWARE") or AES encryption. */
  encrypted: boolean;
  /** Where the entry's local header starts. */
  localHeaderOffset: number;
}

/**
 * The entries a ZIP's central directory lists, with the sizes it declares,
 * without inflating anything; null if the directory can't be found or is
 * inconsistent. The extractor checks these sizes before any entry is
 * inflated (app/attachments/extract.server.ts), so a decompression bomb is
 * refused from its directory alone. ZIP64 sizes are read too, so a huge entry
 * can't hide behind 0xFFFFFFFF.
 */
export function readZipDirectory(bytes: Uint8Array): ZipEntry[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  if (eocd < 0) return null;

  let count = view.getUint16(eocd + 10, true);
  let size = view.getUint32(eocd + 12, true);
  let offset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    const zip64 = readZip64End(view, eocd);
    if (!zip64) return null;
    ({ count, size, offset } = zip64);
  }
  if (offset + size > eocd) return null;

  const entries: ZipEntry[] = [];
  const names = new TextDecoder();
  let at = offset;
  for (let index = 0; index < count; index++) {
    if (at + 46 > offset + size || view.getUint32(at, true) !== 0x02014b50) return null;
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    let compressedSize = view.getUint32(at + 20, true);
    let uncompressedSize = view.getUint32(at + 24, true);
    let localHeaderOffset = view.getUint32(at + 42, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const end = at + 46 + nameLength + extraLength + commentLength;
    if (end > offset + size) return null;
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));

    if (uncompressedSize === 0xffffffff || compressedSize === 0xffffffff || localHeaderOffset === 0xffffffff) {
      const sizes = readZip64Sizes(view, at + 46 + nameLength, extraLength, {
        uncompressedSize,
        compressedSize,
        localHeaderOffset,
      });
      if (!sizes) return null;
      ({ uncompressedSize, compressedSize, localHeaderOffset } = sizes);
    }
    entries.push({
      name,
      method,
      compressedSize,
      uncompressedSize,
      encrypted: (flags & 1) !== 0 || method === 99,
      localHeaderOffset,
    });
    at = end;
  }
  return entries;
}

/** Where an entry's packed data is, once its local header has been found to agree with the directory. */
export interface ZipEntryData {
  name: string;
  method: number;
  dataOffset: number;
  compressedSize: number;
  /** As declared; the reader counts what really comes out (app/attachments/extract.server.ts). */
  uncompressedSize: number;
}

/**
 * Each entry's data, found through its local header; null when a local header
 * is missing or disagrees with the central directory on the name, the method
 * or (unless the sizes follow the data, flag bit 3) the sizes. Readers differ
 * on which of the two they trust, so a ZIP that tells them different things
 * is refused rather than checked through one and read through the other.
 */
export function zipEntryData(bytes: Uint8Array, entries: ZipEntry[]): ZipEntryData[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const result: ZipEntryData[] = [];
  for (const entry of entries) {
    const at = entry.localHeaderOffset;
    if (at + 30 > view.byteLength || view.getUint32(at, true) !== 0x04034b50) return null;
    const flags = view.getUint16(at + 6, true);
    const method = view.getUint16(at + 8, true);
    const nameLength = view.getUint16(at + 26, true);
    const extraLength = view.getUint16(at + 28, true);
    const dataOffset = at + 30 + nameLength + extraLength;
    if (dataOffset + entry.compressedSize > view.byteLength) return null;
    if (
      method !== entry.method ||
      new TextDecoder().decode(bytes.subarray(at + 30, at + 30 + nameLength)) !== entry.name
    )
      return null;
    if ((flags & 8) === 0) {
      const sizes = localSizes(view, at, nameLength, extraLength);
      if (!sizes || sizes.compressedSize !== entry.compressedSize || sizes.uncompressedSize !== entry.uncompressedSize)
        return null;
    }
    result.push({
      name: entry.name,
      method,
      dataOffset,
      compressedSize: entry.compressedSize,
      uncompressedSize: entry.uncompressedSize,
    });
  }
  return result;
}

/** A local header's sizes, from its ZIP64 extra field when the 32-bit fields say so. */
function localSizes(
  view: DataView,
  at: number,
  nameLength: number,
  extraLength: number,
): { compressedSize: number; uncompressedSize: number } | null {
  const compressedSize = view.getUint32(at + 18, true);
  const uncompressedSize = view.getUint32(at + 22, true);
  if (compressedSize !== 0xffffffff && uncompressedSize !== 0xffffffff) return { compressedSize, uncompressedSize };
  return readZip64Sizes(view, at + 30 + nameLength, extraLength, {
    uncompressedSize,
    compressedSize,
    localHeaderOffset: 0,
  });
}

/** The End Of Central Directory record: 22 bytes, then a comment of at most 65535. */
function findEndOfCentralDirectory(view: DataView): number {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (view.getUint32(at, true) === 0x06054b50 && at + 22 + view.getUint16(at + 20, true) === view.byteLength)
      return at;
  }
  return -1;
}

function readZip64End(view: DataView, eocd: number): { count: number; size: number; offset: number } | null {
  const locator = eocd - 20;
  if (locator < 0 || view.getUint32(locator, true) !== 0x07064b50) return null;
  const record = safeNumber(view.getBigUint64(locator + 8, true));
  if (record === null || record + 56 > locator || view.getUint32(record, true) !== 0x06064b50) return null;
  const count = safeNumber(view.getBigUint64(record + 32, true));
  const size = safeNumber(view.getBigUint64(record + 40, true));
  const offset = safeNumber(view.getBigUint64(record + 48, true));
  if (count === null || size === null || offset === null) return null;
  return { count, size, offset };
}

interface Zip64Fields {
  uncompressedSize: number;
  compressedSize: number;
  localHeaderOffset: number;
}

/** The ZIP64 extra field (0x0001) holds, in order, only the fields whose 32-bit value is 0xFFFFFFFF. */
function readZip64Sizes(view: DataView, start: number, length: number, fields: Zip64Fields): Zip64Fields | null {
  for (let at = start; at + 4 <= start + length;) {
    const id = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    if (at + 4 + size > start + length) return null;
    if (id === 0x0001) {
      let field = at + 4;
      const wide = (value: number): number | null => {
        if (value !== 0xffffffff) return value;
        if (field + 8 > at + 4 + size) return null;
        const read = safeNumber(view.getBigUint64(field, true));
        field += 8;
        return read;
      };
      const uncompressedSize = wide(fields.uncompressedSize);
      const compressedSize = wide(fields.compressedSize);
      const localHeaderOffset = wide(fields.localHeaderOffset);
      if (uncompressedSize === null || compressedSize === null || localHeaderOffset === null) return null;
      return { uncompressedSize, compressedSize, localHeaderOffset };
    }
    at += 4 + size;
  }
  return null;
}

function safeNumber(value: bigint): number | null {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
}

// ---------------------------------------------------------------------------
// Messages and helpers

const ACCEPTED = "Attach images (PNG, JPEG, WebP, GIF), PDF, Word (.docx) or text files.";

function unsupported(name: string): string {
  return `${quoted(name)} isn't a kind of file the assistant can read. ${ACCEPTED}`;
}

function passwordError(name: string): string {
  return `${quoted(name)} is protected with a password. Remove the password, then attach it again.`;
}

/** The name as the user gave it, shortened: the upload has already taken out paths and control characters. */
function quoted(name: string): string {
  const chars = Array.from(name);
  const shown = chars.length > 120 ? `${chars.slice(0, 119).join("")}…` : name;
  return shown ? `"${shown}"` : "This file";
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.byteLength < at + prefix.length) return false;
  return prefix.every((byte, index) => bytes[at + index] === byte);
}

function ascii(text: string): number[] {
  return Array.from(text, (char) => char.charCodeAt(0));
}
