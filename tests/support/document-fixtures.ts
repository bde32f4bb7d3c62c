import zlib from "node:zlib";
import { strToU8, zipSync } from "fflate";

/** Documents built in tests: real .docx packages (a ZIP with the content types, the package relationship and the document), and hostile PDFs and .docx files. */

export const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
export const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

export function documentXml(paragraphs: string[]): string {
  const body = paragraphs.map((text) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`).join("");
  return `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
}

/** A real .docx: a ZIP with the content types, the package relationship and the document. */
export function docx(paragraphs: string[]): Uint8Array {
  return zipSync({
    "[Content_Types].xml": strToU8(CONTENT_TYPES),
    "_rels/.rels": strToU8(RELS),
    "word/document.xml": strToU8(documentXml(paragraphs)),
  });
}

// ---------------------------------------------------------------------------
// Hostile documents, built here rather than kept as binary files.

const MiB = 1024 * 1024;

/**
 * prefix, then `times` × chunk, then suffix, deflated at level 9 (raw, as in
 * a ZIP) without deflating more than one chunk: each piece is flushed to a
 * byte boundary and refers to nothing before it, so the deflated pieces join
 * into one valid stream. A GiB costs a few milliseconds, not seconds of CPU.
 */
function deflateRepeated(prefix: string, chunk: Uint8Array, times: number, suffix: string): Buffer {
  const piece = { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH };
  const packedChunk = zlib.deflateRawSync(chunk, piece);
  const packedPrefix = zlib.deflateRawSync(Buffer.from(prefix, "latin1"), piece);
  const packedSuffix = zlib.deflateRawSync(Buffer.from(suffix, "latin1"), { level: 9 });
  return Buffer.concat([packedPrefix, ...Array.from({ length: times }, () => packedChunk), packedSuffix]);
}

/** The same in zlib's format (as PDFs' FlateDecode streams are): a header, the raw stream, the Adler-32 of everything. */
function zlibRepeated(prefix: string, chunk: Uint8Array, times: number, suffix: string): Buffer {
  let checksum = adler32(Buffer.from(prefix, "latin1"));
  const chunkChecksum = adler32(chunk);
  for (let index = 0; index < times; index++) checksum = adler32Combine(checksum, chunkChecksum, chunk.length);
  checksum = adler32Combine(checksum, adler32(Buffer.from(suffix, "latin1")), suffix.length);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(checksum);
  return Buffer.concat([Buffer.from([0x78, 0xda]), deflateRepeated(prefix, chunk, times, suffix), trailer]);
}

function adler32(bytes: Uint8Array): number {
  let [low, high] = [1, 0];
  for (const byte of bytes) {
    low = (low + byte) % 65521;
    high = (high + low) % 65521;
  }
  return ((high << 16) | low) >>> 0;
}

/** zlib's adler32_combine: the checksum of A then B, from A's, B's and B's length. */
function adler32Combine(first: number, second: number, secondLength: number): number {
  const BASE = 65521;
  const remainder = secondLength % BASE;
  let low = first & 0xffff;
  let high = (remainder * low) % BASE;
  low += (second & 0xffff) + BASE - 1;
  high += (first >>> 16) + (second >>> 16) + BASE - remainder;
  if (low >= BASE) low -= BASE;
  if (low >= BASE) low -= BASE;
  if (high >= BASE * 2) high -= BASE * 2;
  if (high >= BASE) high -= BASE;
  return ((high << 16) | low) >>> 0;
}

/** The CRC-32 of prefix, then `times` × chunk, then suffix (as a ZIP's headers hold it). */
function crc32Repeated(prefix: string, chunk: Uint8Array, times: number, suffix: string): number {
  let crc = zlib.crc32(Buffer.from(prefix, "latin1"));
  for (let index = 0; index < times; index++) crc = zlib.crc32(chunk, crc);
  return zlib.crc32(Buffer.from(suffix, "latin1"), crc);
}

/**
 * A PDF of `pages` pages that all show one content stream, FlateDecode'd
 * from `content` (already deflated in zlib's format), in Helvetica.
 */
export function pdfWithContent(deflatedContent: Uint8Array, pages = 1): Uint8Array {
  const font = 4 + pages;
  const kids = Array.from({ length: pages }, (_, index) => `${4 + index} 0 R`).join(" ");
  const objects: Array<string | Uint8Array> = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    deflatedContent,
    ...Array.from(
      { length: pages },
      () =>
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`,
    ),
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n")];
  let size = parts[0].length;
  const offsets: number[] = [];
  const add = (part: string | Uint8Array) => {
    const bytes = typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part);
    parts.push(bytes);
    size += bytes.length;
  };
  objects.forEach((object, index) => {
    offsets.push(size);
    if (typeof object === "string") return add(`${index + 1} 0 obj\n${object}\nendobj\n`);
    add(`${index + 1} 0 obj\n<< /Length ${object.length} /Filter /FlateDecode >>\nstream\n`);
    add(object);
    add("\nendstream\nendobj\n");
  });
  const xref = size;
  add(
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")}`,
  );
  add(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * A PDF that is slow to read and small to send: each of its `pages` pages
 * runs the same million save/restore operators before one word, so pdf.js
 * spends ~0.7 s of a free core on every page.
 */
export function slowPdf(pages: number): Uint8Array {
  return pdfWithContent(
    zlibRepeated("", Buffer.from("q Q ".repeat(250_000)), 4, "BT /F1 12 Tf 10 10 Td (slow) Tj ET"),
    pages,
  );
}

/** A PDF, about 2 MB a GiB, whose one content stream inflates to `mib` MiB (1 GiB by default) of text operators: "(AAAA…) Tj" over and over. */
export function pdfStreamBomb(mib = 1024): Uint8Array {
  const show = `(${"A".repeat(1000)}) Tj `;
  const chunk = Buffer.from(show.repeat(Math.ceil(MiB / show.length)), "latin1");
  return pdfWithContent(zlibRepeated("BT /F1 12 Tf 10 10 Td ", chunk, mib, "ET"));
}

/**
 * About 1 MB a GiB: a .docx whose word/document.xml inflates to `mib` MiB (1
 * GiB by default) of "A" while both its local header and the central
 * directory declare 1000 bytes (with the real CRC-32), so every check of
 * declared sizes passes.
 */
export function docxSizeLieBomb(mib = 1024): Uint8Array {
  const prefix =
    '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>';
  const suffix = "</w:t></w:r></w:p></w:body></w:document>";
  const chunk = Buffer.alloc(MiB, "A");
  const document = {
    name: "word/document.xml",
    packed: deflateRepeated(prefix, chunk, mib, suffix),
    crc: crc32Repeated(prefix, chunk, mib, suffix),
    declaredSize: 1000,
  };
  const small = (name: string, text: string) => {
    const data = Buffer.from(text);
    return { name, packed: zlib.deflateRawSync(data), crc: zlib.crc32(data), declaredSize: data.length };
  };
  return zipOf([small("[Content_Types].xml", CONTENT_TYPES), small("_rels/.rels", RELS), document]);
}

/** One deflated entry of a hand-written ZIP. */
export interface ZipEntryBytes {
  name: string;
  packed: Buffer;
  crc: number;
  /** The uncompressed size both headers declare, true or not. */
  declaredSize: number;
  /** An uncompressed size the central directory declares in ZIP64 form instead. */
  zip64Size?: number;
}

/**
 * A ZIP of deflated entries written by hand, declaring the sizes it is told
 * (true or not), for the readers' checks of what a ZIP claims.
 */
export function zipOf(entries: ZipEntryBytes[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(entry.crc, 14);
    local.writeUInt32LE(entry.packed.length, 18);
    local.writeUInt32LE(entry.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, entry.packed);

    const zip64 = entry.zip64Size !== undefined;
    const extra = Buffer.alloc(zip64 ? 20 : 0);
    if (zip64) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(16, 2);
      extra.writeBigUInt64LE(BigInt(entry.zip64Size!), 4);
      extra.writeBigUInt64LE(BigInt(entry.packed.length), 12);
    }
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(zip64 ? 45 : 20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(entry.crc, 16);
    header.writeUInt32LE(zip64 ? 0xffffffff : entry.packed.length, 20);
    header.writeUInt32LE(zip64 ? 0xffffffff : entry.declaredSize, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt16LE(extra.length, 30);
    header.writeUInt32LE(offset, 42);
    central.push(header, name, extra);
    offset += local.length + name.length + entry.packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}
