import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { DOCX_MEDIA_TYPE, readZipDirectory, sniffFile } from "~/attachments/sniff.server";

/** Magic bytes and padding: enough for sniffing, which reads only the start. */
function bytesOf(...parts: (number[] | string)[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) out.push(...(typeof part === "string" ? Array.from(Buffer.from(part, "latin1")) : part));
  return Uint8Array.from(out);
}
const padding = new Array(64).fill(0);

const PNG = bytesOf([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], padding);
const JPEG = bytesOf([0xff, 0xd8, 0xff, 0xe0], padding);
const GIF = bytesOf("GIF89a", padding);
const WEBP = bytesOf("RIFF", [0x24, 0, 0, 0], "WEBPVP8 ", padding);

const utf8 = (text: string) => new TextEncoder().encode(text);

function docx(): Uint8Array {
  return zipSync({
    "[Content_Types].xml": strToU8(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    ),
    "word/document.xml": strToU8(
      '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body/></w:document>',
    ),
  });
}

describe("sniffFile: images by their magic bytes", () => {
  it.each([
    ["PNG", PNG, "image/png"],
    ["JPEG", JPEG, "image/jpeg"],
    ["GIF", GIF, "image/gif"],
    ["WebP", WEBP, "image/webp"],
  ])("%s", (_, bytes, mediaType) => {
    expect(sniffFile(bytes, "picture")).toEqual({ ok: true, kind: "image", mediaType });
  });

  it("reads the content, not the name: a PNG named report.pdf is a PNG", () => {
    expect(sniffFile(PNG, "report.pdf")).toEqual({ ok: true, kind: "image", mediaType: "image/png" });
  });

  it("refuses a RIFF file that is not WebP (a WAV)", () => {
    const wav = bytesOf("RIFF", [0x24, 0, 0, 0], "WAVEfmt ", padding);
    expect(sniffFile(wav, "sound.webp")).toMatchObject({ ok: false });
  });
});

describe("sniffFile: PDF", () => {
  it("finds %PDF- at the start", () => {
    expect(sniffFile(bytesOf("%PDF-1.7\n", padding), "a.bin")).toEqual({
      ok: true,
      kind: "pdf",
      mediaType: "application/pdf",
    });
  });

  it("finds %PDF- after junk within the first 1024 bytes", () => {
    expect(sniffFile(bytesOf("x".repeat(1000), "%PDF-1.4\n", padding), "scan")).toMatchObject({
      ok: true,
      kind: "pdf",
    });
  });

  it("does not look past the first 1024 bytes (that text file only mentions a PDF header)", () => {
    expect(sniffFile(utf8(`${"x".repeat(1100)}%PDF-1.4\n`), "notes.txt")).toEqual({
      ok: true,
      kind: "text",
      mediaType: "text/plain",
    });
  });

  it("is not fooled by a name: a PDF named notes.txt is a PDF", () => {
    expect(sniffFile(bytesOf("%PDF-1.7\n", padding), "notes.txt")).toMatchObject({ ok: true, kind: "pdf" });
  });
});

describe("sniffFile: Word documents are ZIPs holding word/document.xml", () => {
  it("recognises a DOCX from its ZIP directory", () => {
    expect(sniffFile(docx(), "letter.docx")).toEqual({ ok: true, kind: "docx", mediaType: DOCX_MEDIA_TYPE });
  });

  it("refuses a spreadsheet with a message naming it and what can be attached", () => {
    const xlsx = zipSync({ "[Content_Types].xml": strToU8("<Types/>"), "xl/workbook.xml": strToU8("<workbook/>") });
    expect(sniffFile(xlsx, "report.xlsx")).toEqual({
      ok: false,
      error: `"report.xlsx" isn't a kind of file the assistant can read. Attach images (PNG, JPEG, WebP, GIF), PDF, Word (.docx) or text files.`,
    });
  });

  it("refuses a plain ZIP, even named .docx", () => {
    const zip = zipSync({ "readme.txt": strToU8("hello"), "src/main.c": strToU8("int main(){}") });
    expect(sniffFile(zip, "letter.docx")).toMatchObject({
      ok: false,
      error: expect.stringContaining("isn't a kind of file"),
    });
  });

  it("says a truncated ZIP looks damaged", () => {
    const bytes = docx();
    expect(sniffFile(bytes.subarray(0, bytes.length - 30), "letter.docx")).toEqual({
      ok: false,
      error: '"letter.docx" looks damaged and can\'t be read.',
    });
  });

  it("says a password-protected Word document (an OLE file with an EncryptedPackage) is protected", () => {
    const ole = bytesOf(
      [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
      padding,
      Array.from(Buffer.from("EncryptedPackage", "utf16le")),
      padding,
    );
    expect(sniffFile(ole, "secret.docx")).toMatchObject({
      ok: false,
      error: expect.stringContaining("protected with a password"),
    });
  });

  it("refuses a legacy .doc (an OLE file without encryption)", () => {
    const doc = bytesOf([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], padding);
    expect(sniffFile(doc, "old.doc")).toMatchObject({
      ok: false,
      error: expect.stringContaining("isn't a kind of file"),
    });
  });
});

describe("sniffFile: text", () => {
  it.each([
    ["notes.txt", "text/plain"],
    ["README.md", "text/markdown"],
    ["post.markdown", "text/markdown"],
    ["table.CSV", "text/csv"],
    ["main.ts", "text/plain"],
    ["script.py", "text/plain"],
    ["config.yaml", "text/plain"],
    ["no-extension", "text/plain"],
  ])("%s is %s", (name, mediaType) => {
    expect(sniffFile(utf8("a,b\n1,2\n"), name)).toEqual({ ok: true, kind: "text", mediaType });
  });

  it("stores HTML as text/plain, never as a page", () => {
    expect(sniffFile(utf8("<!doctype html><script>alert(1)</script>"), "page.html")).toEqual({
      ok: true,
      kind: "text",
      mediaType: "text/plain",
    });
  });

  it("stores SVG as text/plain", () => {
    expect(
      sniffFile(utf8('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), "logo.svg"),
    ).toEqual({
      ok: true,
      kind: "text",
      mediaType: "text/plain",
    });
  });

  it("labels JSON application/json only if it parses", () => {
    expect(sniffFile(utf8('{"a": [1, 2]}'), "data.json")).toMatchObject({ mediaType: "application/json" });
    expect(sniffFile(bytesOf([0xef, 0xbb, 0xbf], '{"a": 1}'), "bom.json")).toMatchObject({
      mediaType: "application/json",
    });
    expect(sniffFile(utf8("{not json"), "broken.json")).toMatchObject({ kind: "text", mediaType: "text/plain" });
  });

  it("accepts a UTF-8 BOM and non-ASCII text", () => {
    expect(sniffFile(bytesOf([0xef, 0xbb, 0xbf], Array.from(utf8("café 日本語 👍\r\n"))), "u.txt")).toMatchObject({
      ok: true,
      kind: "text",
    });
  });

  it("refuses bytes that are not UTF-8", () => {
    expect(sniffFile(bytesOf("caf", [0xe9], " au lait"), "latin1.txt")).toMatchObject({
      ok: false,
      error: expect.stringContaining('"latin1.txt"'),
    });
  });

  it("refuses text holding a NUL byte (UTF-16 among others)", () => {
    expect(sniffFile(Uint8Array.from(Buffer.from("hello", "utf16le")), "utf16.txt")).toMatchObject({ ok: false });
    expect(sniffFile(bytesOf("abc", [0], "def"), "nul.txt")).toMatchObject({ ok: false });
  });
});

describe("sniffFile: everything else", () => {
  it("says an empty file is empty", () => {
    expect(sniffFile(new Uint8Array(0), "nothing.txt")).toEqual({ ok: false, error: "This file is empty." });
  });

  it("refuses an executable", () => {
    const elf = bytesOf([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], padding);
    expect(sniffFile(elf, "tool")).toMatchObject({
      ok: false,
      error: expect.stringContaining('"tool" isn\'t a kind of file'),
    });
  });

  it("refuses an image format it does not take (BMP)", () => {
    expect(sniffFile(bytesOf("BM", [0x36, 0, 0, 0], padding), "photo.bmp")).toMatchObject({ ok: false });
  });
});

describe("readZipDirectory", () => {
  it("lists the entries with their declared sizes", () => {
    const zip = zipSync({ "a.txt": strToU8("a".repeat(1000)), "dir/b.bin": new Uint8Array(10) }, { level: 9 });
    const entries = readZipDirectory(zip);
    expect(entries?.map((entry) => [entry.name, entry.uncompressedSize, entry.encrypted])).toEqual([
      ["a.txt", 1000, false],
      ["dir/b.bin", 10, false],
    ]);
    expect(entries?.[0].compressedSize).toBeLessThan(100);
  });

  it("gives null for bytes with no directory", () => {
    expect(readZipDirectory(utf8("PK\u0003\u0004 not really"))).toBeNull();
  });
});
