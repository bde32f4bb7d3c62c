/**
 * A reply cut into top-level Markdown blocks that render the same apart as
 * together (ADR 082), so that while a reply streams only its last block, the
 * one being written, is parsed again; the blocks before it keep their text
 * and are not rendered again (./markdown-render.tsx memoizes each by its
 * source).
 *
 * A cut is made only where it cannot change the result: at a blank line,
 * outside any fenced code or display math, before a line that starts a new
 * block at the margin. Everything uncertain keeps the text together, which
 * is always right (the whole reply as one block is what the parser sees):
 *
 * - no cut before an indented line (a list item's or indented code's continuation),
 * - no cut before a list item once the block holds one (the list may go on,
 *   loose, across the blank line); a list after a paragraph starts a block,
 * - no cut after a line that may open an HTML block (`<`), which can span blank lines,
 * - no cut at all when the reply defines a link or footnote (`[x]: …`, `[^x]: …`),
 *   which its other blocks may refer to.
 */

/** A fence of code (``` or ~~~) or of display math ($$), at up to three spaces, possibly in a container. */
const FENCE = /^(?:[ \t]*(?:>[ \t]?|[-*+][ \t]|\d{1,9}[.)][ \t]))*[ \t]*(`{3,}|~{3,}|\${2,})(.*)$/;
const LIST_ITEM = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
/** A list item at any indentation or inside a quote: what a later item could continue. */
const ANY_LIST_ITEM = /^[ \t>]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;
const HTML_START = /^[ \t>]*</;

/** Where each block starts: offsets into `text`, the first always 0. */
export function blockStarts(text: string): number[] {
  const starts = [0];
  if (DEFINITION.test(text)) return starts;
  let fence: string | null = null;
  let afterBlank = false;
  let htmlSeen = false;
  /** Whether the block so far has a list item (a later item may belong to its list). */
  let listInBlock = false;
  let offset = 0;
  for (const line of text.split("\n")) {
    const lineStart = offset;
    offset += line.length + 1;
    if (fence !== null) {
      const close = FENCE.exec(line);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length && close[2].trim() === "") fence = null;
      continue;
    }
    if (line.trim() === "") {
      afterBlank = true;
      continue;
    }
    if (afterBlank && !htmlSeen && lineStart > 0 && /^\S/.test(line) && !(listInBlock && LIST_ITEM.test(line))) {
      starts.push(lineStart);
      listInBlock = false;
    }
    afterBlank = false;
    if (ANY_LIST_ITEM.test(line)) listInBlock = true;
    if (HTML_START.test(line)) htmlSeen = true;
    const open = FENCE.exec(line);
    // A backtick or dollar fence's info string holds no backtick or dollar ("$$x$$ and y" is a paragraph).
    if (open && !(open[1][0] !== "~" && open[2].includes(open[1][0]))) fence = open[1];
  }
  return starts;
}

/** The reply's blocks, in order; joined they give back `text`. */
export function splitBlocks(text: string): string[] {
  const starts = blockStarts(text);
  return starts.map((start, index) => text.slice(start, starts[index + 1] ?? text.length));
}
