/**
 * Whether a reply is cheap enough to render as Markdown (ADR 050).
 *
 * The Markdown parser (micromark, under react-markdown) is quadratic in the
 * number of brackets and emphasis markers of one paragraph (30 000 `[` and
 * 30 000 `]` took 5–9 s), and the nesting of block quotes and lists is
 * rendered recursively (1 200 `>` overflowed the stack). Replies are rendered on every view
 * of their conversation, on the server's only thread, and their text is
 * steered by whoever can put words before the model. So before parsing, one
 * linear pass estimates the cost; a reply over any limit is shown as plain
 * text (escaped by React like all text, still readable) instead.
 *
 * The estimate over-counts on purpose: a block here is a run of lines between
 * blank lines, list items and headings, which is never smaller than a real
 * paragraph, so an attacker cannot split a costly paragraph in two for this
 * scan while the parser sees one.
 */

/** Longer replies are shown as plain text whatever they contain (a bound on every linear cost). */
export const MAX_MARKDOWN_CHARS = 40_000;
/** Block quotes and lists nested deeper than this (real replies nest 3–4 levels). */
export const MAX_NESTING_DEPTH = 16;
/**
 * Sum over blocks of (inline markers in the block)²: the parser's work is
 * about this many steps of ~5–40 ns, so 1 000 000 keeps the worst reply to a
 * few tens of ms while a paragraph may still hold 1 000 markers.
 */
export const MAX_DELIMITER_COST = 1_000_000;

/**
 * Elements the rendered reply may have, estimated as lines plus characters
 * that can each make one (inline markers, table cells, autolinks): rendering
 * is linear, but at some 10–40 µs an element a 30 KB table took over 1 s.
 */
export const MAX_ELEMENTS = 4_000;

export type MarkdownVerdict = { ok: true } | { ok: false; reason: "size" | "depth" | "delimiters" | "elements" };

/** Characters that open or close inline constructs the parser pairs up (emphasis, strikethrough, links, code, autolinks). */
function isInlineMarker(code: number): boolean {
  return (
    code === 42 /* * */ ||
    code === 95 /* _ */ ||
    code === 126 /* ~ */ ||
    code === 91 /* [ */ ||
    code === 93 /* ] */ ||
    code === 40 /* ( */ ||
    code === 41 /* ) */ ||
    code === 96 /* ` */ ||
    code === 60 /* < */
  );
}

/** A fence that opens a code block from any line, in any container: `(char run, rest of line)`. */
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)/;
const INTERRUPTING_ITEM = /^(?:[-*+]|1[.)])$/;
const HEADING = /^#{1,6}(?:[ \t]|$)/;
/** Markers inside a trusted code fence weigh 1/16: they are not parsed inline (see markdownVerdict). */
const FENCED_WEIGHT = 1 / 16;

interface LinePrefix {
  /** Block quotes and list markers at the start of the line, plus half its indentation (two spaces can open a nested list). */
  depth: number;
  /** Leading spaces and tabs, and whether any quote or list marker came before the content. */
  indent: number;
  inContainer: boolean;
  /** Whether the line, after its quote markers, opens a list item or a heading: a new inline block. */
  startsBlock: boolean;
  /** Where the line's content starts. */
  contentStart: number;
}

function linePrefix(line: string): LinePrefix {
  let i = 0;
  let indent = 0;
  while (i < line.length && (line[i] === " " || line[i] === "\t")) {
    indent += line[i] === "\t" ? 4 : 1;
    i++;
  }
  let markers = 0;
  let startsBlock = false;
  // Spaces before the current marker: four or more make it paragraph text or code, not a new block.
  let spaces = indent;
  let interrupting = false;
  for (;;) {
    if (line[i] === ">") {
      markers++;
      i++;
    } else {
      const list = LIST_MARKER.exec(line.slice(i, i + 12));
      if (!list) {
        if (spaces <= 3 && HEADING.test(line.slice(i, i + 8))) startsBlock = true;
        break;
      }
      markers++;
      i += list[0].length;
      // Only a bullet or "1." with text after it can interrupt a paragraph: "2. x" continues one.
      interrupting = spaces <= 3 && INTERRUPTING_ITEM.test(list[0]);
    }
    spaces = 0;
    while (i < line.length && (line[i] === " " || line[i] === "\t")) {
      spaces += line[i] === "\t" ? 4 : 1;
      i++;
    }
    if (interrupting && i < line.length) startsBlock = true;
    interrupting = false;
    // Deep enough to refuse: stop here, so a line of 30 000 markers costs one pass.
    if (markers > MAX_NESTING_DEPTH) break;
  }
  return { depth: markers + Math.floor(indent / 2), indent, inContainer: markers > 0, startsBlock, contentStart: i };
}

/**
 * One linear pass over `text`: may it be rendered as Markdown?
 *
 * Code is full of brackets and underscores that are never parsed inline, so
 * the markers of a fenced code block weigh less, but only for a fence this
 * scan is sure of: opened at the start of a line outside any container and
 * before any line that could open an HTML block or a link definition (`<`,
 * `[`), whose inner lines a fence-like line does not open. A fence that the
 * parser might see differently counts in full.
 */
export function markdownVerdict(text: string): MarkdownVerdict {
  if (text.length > MAX_MARKDOWN_CHARS) return { ok: false, reason: "size" };
  let cost = 0;
  let elements = 0;
  let markersInBlock = 0;
  let weight = 1;
  /** The opening run of the trusted fence we are in, or null. */
  let fence: string | null = null;
  let fencesTrusted = true;
  const closeBlock = () => {
    cost += weight * markersInBlock * markersInBlock;
    markersInBlock = 0;
  };
  /** Counts a line's content; the verdict if it breaks a limit. */
  const add = (line: string, from: number): MarkdownVerdict | null => {
    const tally = tallyLine(line, from);
    markersInBlock += tally.markers;
    elements += 1 + tally.markers + tally.hints;
    if (cost + weight * markersInBlock * markersInBlock > MAX_DELIMITER_COST)
      return { ok: false, reason: "delimiters" };
    if (elements > MAX_ELEMENTS) return { ok: false, reason: "elements" };
    return null;
  };
  // Line endings as Markdown knows them: a lone "\r" ends a line too.
  for (const line of text.split(/\r\n?|\n/)) {
    if (fence !== null) {
      const close = FENCE.exec(line);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length && close[2].trim() === "") {
        closeBlock();
        fence = null;
        weight = 1;
        continue;
      }
      if (line.trim() === "") closeBlock();
      const refused = add(line, 0);
      if (refused) return refused;
      continue;
    }
    const prefix = linePrefix(line);
    if (prefix.depth > MAX_NESTING_DEPTH) return { ok: false, reason: "depth" };
    const first = line[prefix.contentStart];
    if (first === "<" || first === "[") fencesTrusted = false;
    const open = fencesTrusted && prefix.indent === 0 && !prefix.inContainer ? FENCE.exec(line) : null;
    // A backtick fence's info string holds no backtick; otherwise the line is a paragraph.
    if (open && !(open[1][0] === "`" && open[2].includes("`"))) {
      closeBlock();
      fence = open[1];
      weight = FENCED_WEIGHT;
      continue;
    }
    if (line.slice(prefix.contentStart).trim() === "" || prefix.startsBlock) closeBlock();
    const refused = add(line, prefix.contentStart);
    if (refused) return refused;
  }
  return { ok: true };
}

/** Characters that may each become an element without being an inline marker: table cells, autolinks (www.x, a@b.c, http://). */
function isElementHint(code: number): boolean {
  return code === 124 /* | */ || code === 46 /* . */ || code === 64 /* @ */ || code === 58; /* : */
}

function tallyLine(line: string, from: number): { markers: number; hints: number } {
  let markers = 0;
  let hints = 0;
  for (let i = from; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (isInlineMarker(code)) markers++;
    else if (isElementHint(code)) hints++;
  }
  return { markers, hints };
}
