import type { Extracted } from "./document-types";

/**
 * A document's text cut into passages of about a page of prose, each saying
 * where it came from (a PDF's pages, a text or Word file's lines), so that the
 * passages that answer a question can be found, given to the model and cited
 * back to the user. Pure: no server imports.
 *
 * Passages are cut between lines, at a paragraph's end when one is near the
 * target size, and overlap a little so that a sentence cut in two is whole
 * in one of them. Every line is in at least one passage: no text is lost.
 */

export interface Chunk {
  /** Its position in the document, from 0. */
  ordinal: number;
  text: string;
  /** A PDF's passage: the pages it spans (1-based). */
  pageFrom?: number;
  pageTo?: number;
  /** A text or Word file's passage: the lines of the extracted text it spans (1-based). */
  lineFrom?: number;
  lineTo?: number;
}

export interface ChunkOptions {
  /** The size aimed for, in characters. Default 1500. */
  targetChars?: number;
  /** How much of a passage's end the next one repeats, at most, in whole lines. Default 200. */
  overlapChars?: number;
}

const DEFAULT_TARGET_CHARS = 1500;
const DEFAULT_OVERLAP_CHARS = 200;

/** A line of the document, or a piece of one longer than a passage. */
interface Unit {
  text: string;
  page?: number;
  line?: number;
  /** What joins it to the unit before it: a new line, a new page, or nothing (the rest of a long line). */
  joinBefore: "\n" | "\n\n" | "";
  blank: boolean;
}

export function chunkDocument(extracted: Extracted, options: ChunkOptions = {}): Chunk[] {
  const target = Math.max(1, Math.floor(options.targetChars ?? DEFAULT_TARGET_CHARS));
  // Less than half a passage, so that every passage brings mostly new text.
  const overlap = Math.max(
    0,
    Math.min(Math.floor(options.overlapChars ?? DEFAULT_OVERLAP_CHARS), Math.floor(target / 2)),
  );
  const units = toUnits(extracted, target);

  const chunks: Chunk[] = [];
  let start = 0;
  // The first unit the next passage must include, so that each one brings new text.
  let fresh = 0;
  while (start < units.length) {
    while (start < units.length && units[start].blank) start++;
    if (start >= units.length) break;

    let end = start;
    let size = 0;
    let paragraphEnd = -1;
    let paragraphEndSize = 0;
    while (end < units.length) {
      const unit = units[end];
      const added = unit.text.length + (end > start ? unit.joinBefore.length : 0);
      if (end > start && end > fresh && size + added > target) break;
      // A blank line or a new page: the passage may end before it.
      if (end > start && (unit.blank || unit.joinBefore === "\n\n")) {
        paragraphEnd = end;
        paragraphEndSize = size;
      }
      size += added;
      end++;
    }
    // Full: end at the last paragraph's end, if that leaves at least half a passage.
    if (end < units.length && paragraphEnd > fresh && paragraphEndSize >= target / 2) end = paragraphEnd;

    const chunk = toChunk(units, start, end, chunks.length);
    if (chunk) chunks.push(chunk);
    if (end >= units.length) break;

    // The next passage repeats whole trailing lines of this one, as many as fit.
    const budget = Math.min(overlap, target - units[end].text.length - 1);
    let next = end;
    let repeated = 0;
    while (next - 1 > start && units[next].joinBefore !== "" && repeated + units[next - 1].text.length + 1 <= budget) {
      repeated += units[next - 1].text.length + 1;
      next--;
    }
    // Never start inside a long line: back to where it begins, or no overlap at all.
    while (next < end && units[next].joinBefore === "") next++;
    fresh = end;
    start = next;
  }
  return chunks;
}

/**
 * "p. 3", "pp. 3–4", "line 7", "lines 10–42"; "whole document" for a passage
 * that says nothing of where it is.
 */
export function describeLocation(chunk: Pick<Chunk, "pageFrom" | "pageTo" | "lineFrom" | "lineTo">): string {
  if (chunk.pageFrom !== undefined) return range(chunk.pageFrom, chunk.pageTo, "p.", "pp.");
  if (chunk.lineFrom !== undefined) return range(chunk.lineFrom, chunk.lineTo, "line", "lines");
  return "whole document";
}

function range(from: number, to: number | undefined, one: string, many: string): string {
  return to === undefined || to === from ? `${one} ${from}` : `${many} ${from}–${to}`;
}

/**
 * A PDF: its pages' lines, each with its page. Otherwise the extracted text's
 * lines, numbered from 1 as the text is (the user can find "lines 10–42").
 */
function toUnits(extracted: Extracted, target: number): Unit[] {
  const units: Unit[] = [];
  const paged = extracted.segments.some((segment) => segment.page !== undefined);
  if (paged) {
    // An empty page adds nothing, not even a blank line.
    const pages = extracted.segments.filter((segment) => segment.text !== "");
    pages.forEach((segment, index) => {
      segment.text.split("\n").forEach((line, lineIndex) => {
        const joinBefore = lineIndex > 0 ? "\n" : index > 0 ? "\n\n" : "\n";
        pushLine(units, line, joinBefore, target, { page: segment.page });
      });
    });
  } else {
    extracted.text.split("\n").forEach((line, index) => pushLine(units, line, "\n", target, { line: index + 1 }));
  }
  return units;
}

/** A line as one unit, or, longer than a passage, as pieces cut after a space where there is one. */
function pushLine(
  units: Unit[],
  line: string,
  joinBefore: Unit["joinBefore"],
  target: number,
  where: { page?: number; line?: number },
) {
  const blank = line.trim() === "";
  let at = 0;
  do {
    let cut = Math.min(line.length, at + target);
    if (cut < line.length) {
      const space = lastSpace(line, at + Math.ceil(target / 2), cut);
      if (space > at) cut = space;
      // Never between the two halves of a surrogate pair.
      else if (isLowSurrogate(line.charCodeAt(cut)) && cut - 1 > at) cut--;
    }
    units.push({ text: line.slice(at, cut), ...where, joinBefore: at === 0 ? joinBefore : "", blank });
    at = cut;
  } while (at < line.length);
}

/** The index just after the last whitespace in line[from, to), or -1. */
function lastSpace(line: string, from: number, to: number): number {
  for (let index = to - 1; index >= from; index--) {
    if (/\s/.test(line[index])) return index + 1;
  }
  return -1;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Units [start, end) as a passage, blank lines at its edges left out; undefined if nothing but blanks. */
function toChunk(units: Unit[], start: number, end: number, ordinal: number): Chunk | undefined {
  let first = start;
  let last = end - 1;
  while (first <= last && units[first].blank) first++;
  while (last >= first && units[last].blank) last--;
  if (first > last) return undefined;

  let text = units[first].text;
  for (let index = first + 1; index <= last; index++) text += units[index].joinBefore + units[index].text;
  const chunk: Chunk = { ordinal, text };
  if (units[first].page !== undefined) {
    chunk.pageFrom = units[first].page;
    chunk.pageTo = units[last].page;
  }
  if (units[first].line !== undefined) {
    chunk.lineFrom = units[first].line;
    chunk.lineTo = units[last].line;
  }
  return chunk;
}
