import { describe, expect, it } from "vitest";
import { chunkDocument, describeLocation, type Chunk } from "~/attachments/chunks";
import type { Extracted } from "~/attachments/document-types";

/** A text or Word file's extraction: one segment, no page. */
function textDocument(text: string): Extracted {
  return { text, segments: [{ text }] };
}

/** A PDF's extraction: one segment per page. */
function pdfDocument(pages: string[]): Extracted {
  return {
    text: pages.filter((page) => page !== "").join("\n\n"),
    segments: pages.map((text, index) => ({ text, page: index + 1 })),
    pages: pages.length,
  };
}

/** A sentence of about 80 characters, numbered so every line differs. */
const sentence = (n: number) => `Sentence ${n} says something about the subject at hand, in about eighty letters.`;

/** Paragraphs of `lines` lines each, separated by a blank line. */
function paragraphs(count: number, lines: number): string {
  let n = 0;
  return Array.from({ length: count }, () => Array.from({ length: lines }, () => sentence(++n)).join("\n")).join(
    "\n\n",
  );
}

/** Each passage is exactly its lines of the text, and together they hold every line that isn't blank. */
function expectLinesKept(text: string, chunks: Chunk[]) {
  const lines = text.split("\n");
  const covered = new Set<number>();
  chunks.forEach((chunk, index) => {
    expect(chunk.ordinal).toBe(index);
    expect(chunk.pageFrom).toBeUndefined();
    expect(chunk.text).toBe(lines.slice(chunk.lineFrom! - 1, chunk.lineTo!).join("\n"));
    for (let line = chunk.lineFrom!; line <= chunk.lineTo!; line++) covered.add(line);
  });
  lines.forEach((line, index) => {
    if (line.trim() !== "") expect(covered.has(index + 1)).toBe(true);
  });
}

describe("chunkDocument: text and Word files, by lines", () => {
  it("keeps a short document whole", () => {
    expect(chunkDocument(textDocument("one\ntwo\n\nthree\n"))).toEqual([
      { ordinal: 0, text: "one\ntwo\n\nthree", lineFrom: 1, lineTo: 4 },
    ]);
  });

  it("gives nothing for a document of blank lines", () => {
    expect(chunkDocument(textDocument("\n  \n\n"))).toEqual([]);
  });

  it("cuts a long document near the target size without losing a line", () => {
    const text = paragraphs(40, 6);
    const chunks = chunkDocument(textDocument(text));
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(1500);
    expectLinesKept(text, chunks);
  });

  it("ends passages at a paragraph's end when one is near", () => {
    // Paragraphs of six 80-character lines (~490 characters): three fit in a passage.
    const text = paragraphs(12, 6);
    const chunks = chunkDocument(textDocument(text));
    const lines = text.split("\n");
    for (const chunk of chunks.slice(0, -1)) {
      // The line after each passage is blank: it ended with its paragraph.
      expect(lines[chunk.lineTo!]).toBe("");
    }
  });

  it("repeats the end of a passage cut inside a paragraph at the start of the next", () => {
    // One paragraph of 100 lines: no paragraph end to cut at.
    const text = Array.from({ length: 100 }, (_, index) => sentence(index + 1)).join("\n");
    const chunks = chunkDocument(textDocument(text));
    for (let index = 1; index < chunks.length; index++) {
      const previous = chunks[index - 1];
      const current = chunks[index];
      expect(current.lineFrom!).toBeLessThanOrEqual(previous.lineTo!);
      expect(current.lineFrom!).toBeGreaterThan(previous.lineFrom!);
      expect(current.lineTo!).toBeGreaterThan(previous.lineTo!);
    }
    expectLinesKept(text, chunks);
  });

  it("follows targetChars and overlapChars", () => {
    const text = Array.from({ length: 60 }, (_, index) => sentence(index + 1)).join("\n");
    const noOverlap = chunkDocument(textDocument(text), { targetChars: 400, overlapChars: 0 });
    for (const chunk of noOverlap) expect(chunk.text.length).toBeLessThanOrEqual(400);
    for (let index = 1; index < noOverlap.length; index++)
      expect(noOverlap[index].lineFrom).toBe(noOverlap[index - 1].lineTo! + 1);
    expectLinesKept(text, noOverlap);

    // An overlap as large as the target is cut to half a passage, so every passage still brings new lines.
    const bigOverlap = chunkDocument(textDocument(text), { targetChars: 400, overlapChars: 5000 });
    for (let index = 1; index < bigOverlap.length; index++)
      expect(bigOverlap[index].lineTo!).toBeGreaterThan(bigOverlap[index - 1].lineTo!);
    expectLinesKept(text, bigOverlap);
  });

  it("cuts a line longer than a passage after a space, keeping every character", () => {
    const line = Array.from({ length: 500 }, (_, index) => `word${index}`).join(" ");
    const chunks = chunkDocument(textDocument(line));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((chunk) => chunk.text).join("")).toBe(line);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(1500);
      expect(chunk).toMatchObject({ lineFrom: 1, lineTo: 1 });
    }
    // Pieces end after a space: no word is cut in two.
    for (const chunk of chunks.slice(0, -1)) expect(chunk.text).toMatch(/ $/);

    const around = chunkDocument(textDocument(`intro\n${line}\noutro`));
    expect(around[0]).toMatchObject({ text: "intro", lineFrom: 1, lineTo: 1 });
    expect(around.at(-1)).toMatchObject({ lineTo: 3 });
    expect(around.at(-1)!.text.endsWith("\noutro")).toBe(true);
  });

  it("cuts a line with no spaces at the target, never inside a surrogate pair", () => {
    const line = "👍".repeat(1000); // 2000 UTF-16 code units
    const chunks = chunkDocument(textDocument(line), { targetChars: 301 });
    expect(chunks.map((chunk) => chunk.text).join("")).toBe(line);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(301);
      expect(chunk.text).toMatch(/^(?:👍)+$/u);
    }
  });
});

describe("chunkDocument: PDFs, by pages", () => {
  it("says which pages a passage spans", () => {
    const pages = Array.from({ length: 10 }, (_, page) =>
      Array.from({ length: 6 }, (_, line) => sentence(page * 10 + line)).join("\n"),
    );
    const chunks = chunkDocument(pdfDocument(pages));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks[0].pageFrom).toBe(1);
    expect(chunks.at(-1)!.pageTo).toBe(10);
    for (const chunk of chunks) {
      expect(chunk.lineFrom).toBeUndefined();
      expect(chunk.pageTo!).toBeGreaterThanOrEqual(chunk.pageFrom!);
    }
    // Pages end paragraphs: a passage that holds whole pages separates them with a blank line.
    expect(chunks[0].text).toBe(`${pages[0]}\n\n${pages[1]}\n\n${pages[2]}`);
    expect(chunks[0]).toMatchObject({ pageFrom: 1, pageTo: 3 });
    // Every page's text is in a passage that names it.
    pages.forEach((text, index) => {
      expect(
        chunks.some((chunk) => chunk.pageFrom! <= index + 1 && index + 1 <= chunk.pageTo! && chunk.text.includes(text)),
      ).toBe(true);
    });
  });

  it("gives a single page one location", () => {
    expect(chunkDocument(pdfDocument(["", "only text", ""]))).toEqual([
      { ordinal: 0, text: "only text", pageFrom: 2, pageTo: 2 },
    ]);
  });

  it("cuts a long page into passages that all name it", () => {
    const page = Array.from({ length: 80 }, (_, index) => sentence(index)).join("\n");
    const chunks = chunkDocument(pdfDocument(["start", page]));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.slice(1).every((chunk) => chunk.pageFrom === 2 && chunk.pageTo === 2)).toBe(true);
  });
});

describe("describeLocation", () => {
  it.each([
    [{ pageFrom: 3, pageTo: 3 }, "p. 3"],
    [{ pageFrom: 3 }, "p. 3"],
    [{ pageFrom: 3, pageTo: 4 }, "pp. 3–4"],
    [{ lineFrom: 7, lineTo: 7 }, "line 7"],
    [{ lineFrom: 10, lineTo: 42 }, "lines 10–42"],
    [{}, "whole document"],
  ])("%o is %s", (where, expected) => {
    expect(describeLocation(where)).toBe(expected);
  });
});
