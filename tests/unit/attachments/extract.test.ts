import zlib from "node:zlib";
import { strToU8, zipSync } from "fflate";
import {
  CONTENT_TYPES,
  docx,
  documentXml,
  docxSizeLieBomb,
  pdfStreamBomb,
  RELS,
  zipOf,
} from "../../support/document-fixtures";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { chunkDocument, describeLocation } from "~/attachments/chunks";
import { AttachmentError, extractText, type AttachmentErrorReason } from "~/attachments/extract.server";
import { sniffFile } from "~/attachments/sniff.server";

// ---------------------------------------------------------------------------
// Fixtures, made here rather than kept as binary files.

/** A PDF whose pages hold these lines of text (none for an empty page). */
async function pdfWithPages(pages: string[][]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = document.addPage([612, 792]);
    lines.forEach((line, index) => page.drawText(line, { x: 50, y: 740 - index * 16, size: 11, font }));
  }
  return await document.save();
}

/** A lot of words: five lines of about 80 characters on each page, naming the page. */
function pageLines(page: number): string[] {
  return Array.from(
    { length: 5 },
    (_, line) => `Page ${page} line ${line + 1}: the quick brown fox jumps over the lazy dog again and again.`,
  );
}

/**
 * A PDF encrypted with the standard security handler whose /U entry matches
 * no password the reader can try (not the empty one): a file that needs a
 * password. pdf-lib can't encrypt, so the file is written by hand.
 */
function encryptedPdf(): Uint8Array {
  const content = "BT /F1 12 Tf 50 700 Td (secret) Tj ET";
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    `<< /Filter /Standard /V 1 /R 2 /O <${"a1".repeat(32)}> /U <${"b2".repeat(32)}> /P -44 >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let pdf = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(pdf.length);
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  pdf += offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 5 0 R /ID [<${"01".repeat(16)}> <${"01".repeat(16)}>] >>\n`;
  pdf += `startxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(pdf);
}

interface ZipFixtureEntry {
  name: string;
  data: Uint8Array;
  level?: number;
  /** The uncompressed size the central directory declares, written as ZIP64 (the real data stays as given). */
  claimedZip64Size?: number;
}

/**
 * A ZIP written by hand with node's native deflate: fast enough for a 200 MB
 * entry, and able to declare sizes in ZIP64 form.
 */
function writeZip(entries: ZipFixtureEntry[]): Uint8Array {
  return zipOf(
    entries.map((entry) => ({
      name: entry.name,
      packed: zlib.deflateRawSync(entry.data, { level: entry.level ?? 6 }),
      crc: zlib.crc32(entry.data),
      declaredSize: entry.data.length,
      zip64Size: entry.claimedZip64Size,
    })),
  );
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** The AttachmentError extractText refuses with (fails the test if it resolves or throws anything else). */
async function refusal(work: Promise<unknown>): Promise<AttachmentError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AttachmentError);
  return error as AttachmentError;
}

async function expectRefused(work: Promise<unknown>, reason: AttachmentErrorReason, message?: string | RegExp) {
  const error = await refusal(work);
  expect(error.reason).toBe(reason);
  if (message !== undefined) expect(error.message).toMatch(message);
}

// ---------------------------------------------------------------------------

describe("extractText: PDF", () => {
  let longPdf: Uint8Array;
  beforeAll(async () => {
    longPdf = await pdfWithPages(Array.from({ length: 200 }, (_, index) => pageLines(index + 1)));
  });

  it("reads a 200-page PDF page by page, and its passages say which pages they span", async () => {
    const extracted = await extractText(longPdf, "pdf");
    expect(extracted.pages).toBe(200);
    expect(extracted.segments).toHaveLength(200);
    extracted.segments.forEach((segment, index) => {
      expect(segment.page).toBe(index + 1);
      expect(segment.text).toBe(pageLines(index + 1).join("\n"));
    });
    expect(extracted.text.startsWith("Page 1 line 1:")).toBe(true);
    expect(extracted.text).toContain("lazy dog again and again.\n\nPage 2 line 1:");

    const chunks = chunkDocument(extracted);
    expect(chunks.length).toBeGreaterThan(40);
    expect(chunks[0]).toMatchObject({ ordinal: 0, pageFrom: 1 });
    expect(chunks.at(-1)?.pageTo).toBe(200);
    for (const chunk of chunks) {
      expect(chunk.pageTo! - chunk.pageFrom!).toBeGreaterThanOrEqual(0);
      expect(chunk.text.length).toBeLessThanOrEqual(1500 + 200);
      expect(chunk.lineFrom).toBeUndefined();
    }
    expect(chunks.some((chunk) => chunk.pageTo! > chunk.pageFrom!)).toBe(true);
    expect(describeLocation(chunks[0])).toMatch(/^pp\. 1–\d$/);
    // Every line of every page is in a passage that names its page.
    for (let page = 1; page <= 200; page++) {
      for (const line of pageLines(page)) {
        expect(
          chunks.some((chunk) => chunk.pageFrom! <= page && page <= chunk.pageTo! && chunk.text.includes(line)),
        ).toBe(true);
      }
    }
  });

  it("gives up when the deadline passes: 1 ms for 200 pages", async () => {
    await expectRefused(extractText(longPdf, "pdf", { deadlineMs: 1 }), "timeout", /^This file took too long to read/);
  });

  it("refuses more text than maxChars", async () => {
    await expectRefused(
      extractText(longPdf, "pdf", { maxChars: 10_000 }),
      "too-much-text",
      /more text than the assistant can read \(over 10,000 characters\)/,
    );
  });

  it("keeps pdf.js in its reader process: the server's globals are untouched", async () => {
    await extractText(longPdf.slice(), "pdf");
    expect("DOMMatrix" in globalThis).toBe(false);
  });

  it("keeps empty pages as empty segments", async () => {
    const extracted = await extractText(await pdfWithPages([["First page"], [], ["Third page"]]), "pdf");
    expect(extracted.segments).toEqual([
      { text: "First page", page: 1 },
      { text: "", page: 2 },
      { text: "Third page", page: 3 },
    ]);
    expect(extracted.text).toBe("First page\n\nThird page");
    expect(chunkDocument(extracted)).toEqual([
      { ordinal: 0, text: "First page\n\nThird page", pageFrom: 1, pageTo: 3 },
    ]);
  });

  it("refuses a PDF with no text (a scan)", async () => {
    await expectRefused(
      extractText(await pdfWithPages([[], []]), "pdf"),
      "no-text",
      "This PDF has no text the assistant can read (it may be scanned images).",
    );
  });

  it("refuses a truncated PDF as damaged", async () => {
    const bytes = await pdfWithPages([pageLines(1), pageLines(2), pageLines(3)]);
    expect(sniffFile(bytes.subarray(0, bytes.length / 2), "cut.pdf")).toMatchObject({ ok: true, kind: "pdf" });
    await expectRefused(
      extractText(bytes.subarray(0, bytes.length / 2), "pdf"),
      "damaged",
      "This PDF can't be read: the file looks damaged.",
    );
  });

  it("refuses a file that only starts like a PDF as damaged", async () => {
    await expectRefused(extractText(utf8(`%PDF-1.7\n${"garbage ".repeat(100)}`), "pdf"), "damaged");
  });

  it("reads a PDF given as a Buffer, as an upload's body arrives", async () => {
    const bytes = Buffer.from(await pdfWithPages([["From a Buffer"]]));
    expect((await extractText(bytes, "pdf")).text).toBe("From a Buffer");
  });

  it("refuses a PDF whose FlateDecode streams inflate past the cap (200 MiB from ~500 KB), before the parser decodes them", async () => {
    const bomb = pdfStreamBomb(200);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expectRefused(extractText(bomb, "pdf"), "too-large", "This PDF is too large to read once unpacked.");
  });

  it("refuses a PDF that needs a password, as the parser finds it encrypted", async () => {
    await expectRefused(
      extractText(encryptedPdf(), "pdf"),
      "encrypted",
      "This PDF is protected with a password. Remove the password, then attach it again.",
    );
  });
});

describe("extractText: DOCX", () => {
  it("reads a Word document's paragraphs as one segment", async () => {
    const extracted = await extractText(docx(["First paragraph.", "Second &amp; last — café."]), "docx");
    expect(extracted).toEqual({
      text: "First paragraph.\n\nSecond & last — café.",
      segments: [{ text: "First paragraph.\n\nSecond & last — café." }],
    });
    expect(chunkDocument(extracted)).toEqual([
      { ordinal: 0, text: "First paragraph.\n\nSecond & last — café.", lineFrom: 1, lineTo: 3 },
    ]);
  });

  it("refuses a truncated Word document as damaged", async () => {
    const bytes = docx(["Hello"]);
    await expectRefused(
      extractText(bytes.subarray(0, bytes.length - 40), "docx"),
      "damaged",
      "This Word document can't be read: the file looks damaged.",
    );
  });

  it("refuses a ZIP without word/document.xml as damaged", async () => {
    await expectRefused(extractText(zipSync({ "a.txt": strToU8("hello") }), "docx"), "damaged");
  });

  it("refuses a Word document whose XML is broken as damaged", async () => {
    const bytes = zipSync({
      "[Content_Types].xml": strToU8(CONTENT_TYPES),
      "_rels/.rels": strToU8(RELS),
      "word/document.xml": strToU8("<w:document><w:body>"),
    });
    await expectRefused(extractText(bytes, "docx"), "damaged");
  });

  it("refuses a Word document with no text", async () => {
    await expectRefused(
      extractText(docx([]), "docx"),
      "no-text",
      "This Word document has no text the assistant can read.",
    );
  });

  it("refuses a password-protected Word document (an OLE file with an EncryptedPackage)", async () => {
    const ole = Buffer.concat([
      Buffer.from("d0cf11e0a1b11ae1", "hex"),
      Buffer.alloc(64),
      Buffer.from("EncryptedPackage", "utf16le"),
    ]);
    await expectRefused(
      extractText(new Uint8Array(ole), "docx"),
      "encrypted",
      /^This Word document is protected with a password/,
    );
  });

  it("refuses a zip bomb (200 MB of zeros in ~200 KB) from its directory, before inflating it", async () => {
    const bomb = writeZip([
      { name: "[Content_Types].xml", data: strToU8(CONTENT_TYPES) },
      { name: "word/document.xml", data: new Uint8Array(200 * 1024 * 1024), level: 9 },
    ]);
    expect(bomb.length).toBeLessThan(300 * 1024);
    expect(sniffFile(bomb, "bomb.docx")).toMatchObject({ ok: true, kind: "docx" });
    await expectRefused(
      extractText(bomb, "docx"),
      "too-large",
      "This Word document is too large to read once unpacked.",
    );
  });

  it("refuses an entry packed over 100:1 even when the total is small (20 MB of zeros)", async () => {
    const bomb = writeZip([
      { name: "[Content_Types].xml", data: strToU8(CONTENT_TYPES) },
      { name: "word/document.xml", data: strToU8(documentXml(["Hello"])) },
      { name: "word/media/padding.bin", data: new Uint8Array(20 * 1024 * 1024), level: 9 },
    ]);
    await expectRefused(extractText(bomb, "docx"), "too-large");
  });

  it("counts what an entry really inflates to: 8 MiB behind a declared 1,000 bytes (local header and directory agree) is too large", async () => {
    const bomb = docxSizeLieBomb(8);
    expect(sniffFile(bomb, "bomb.docx")).toMatchObject({ ok: true, kind: "docx" });
    await expectRefused(
      extractText(bomb, "docx"),
      "too-large",
      "This Word document is too large to read once unpacked.",
    );
  });

  it("refuses a ZIP whose local header and central directory disagree on a size, a name or the method", async () => {
    const good = writeZip([
      { name: "[Content_Types].xml", data: strToU8(CONTENT_TYPES) },
      { name: "word/document.xml", data: strToU8(documentXml(["Hello"])) },
    ]);
    expect((await extractText(good, "docx")).text).toBe("Hello");
    const localOf = (bytes: Uint8Array, index: number) => {
      let at = 0;
      for (let entry = 0; entry < index; entry++) {
        const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        at += 30 + view.readUInt16LE(at + 26) + view.readUInt16LE(at + 28) + view.readUInt32LE(at + 18);
      }
      return at;
    };
    const altered = (change: (view: Buffer, local: number) => void) => {
      const copy = Buffer.from(good);
      change(copy, localOf(copy, 1));
      return new Uint8Array(copy);
    };
    const cases = [
      altered((view, local) => view.writeUInt32LE(view.readUInt32LE(local + 22) * 1000, local + 22)),
      altered((view, local) => view.writeUInt32LE(view.readUInt32LE(local + 18) - 1, local + 18)),
      altered((view, local) => view.write("x", local + 30)),
      altered((view, local) => view.writeUInt16LE(0, local + 8)),
    ];
    for (const bytes of cases) await expectRefused(extractText(bytes, "docx"), "damaged");
  });

  it("reads the ZIP64 size a bomb declares behind 0xFFFFFFFF", async () => {
    const bomb = writeZip([
      { name: "[Content_Types].xml", data: strToU8(CONTENT_TYPES) },
      { name: "word/document.xml", data: strToU8(documentXml(["Hello"])), claimedZip64Size: 5 * 1024 ** 3 },
    ]);
    await expectRefused(extractText(bomb, "docx"), "too-large");
  });
});

describe("extractText: text", () => {
  it("drops a BOM and makes every line end LF", async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("one\r\ntwo\rthree\n")]);
    expect(await extractText(bytes, "text")).toEqual({
      text: "one\ntwo\nthree\n",
      segments: [{ text: "one\ntwo\nthree\n" }],
    });
  });

  it("keeps leading blank lines, so line numbers match the file", async () => {
    const extracted = await extractText(utf8("\n\nthird line\n"), "text");
    expect(extracted.text).toBe("\n\nthird line\n");
    expect(chunkDocument(extracted)).toEqual([{ ordinal: 0, text: "third line", lineFrom: 3, lineTo: 3 }]);
  });

  it("refuses bytes that are not UTF-8", async () => {
    await expectRefused(extractText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "text"), "not-text");
  });

  it("refuses a NUL byte", async () => {
    await expectRefused(extractText(utf8("abc\u0000def"), "text"), "not-text");
  });

  it("refuses a file of nothing but blank lines", async () => {
    await expectRefused(
      extractText(utf8(" \n\t\n"), "text"),
      "no-text",
      "This file has no text the assistant can read.",
    );
  });

  it("refuses more text than maxChars", async () => {
    await expectRefused(extractText(utf8("x".repeat(101)), "text", { maxChars: 100 }), "too-much-text");
    expect((await extractText(utf8("x".repeat(100)), "text", { maxChars: 100 })).text).toHaveLength(100);
  });
});
