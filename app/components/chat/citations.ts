/**
 * Inline citations in a reply: "[1]" or "[1, 3]", numbered after the
 * passages the reply was given (app/attachments/model-context.server.ts
 * numbers them for the model). Code is never read for citations: "[1]" in
 * a code block or inline code is an index, not a source. docs/decisions/084
 * says why a reply's Sources list only what it cites.
 */

/** "[1]", "[2, 3]": at most three digits each, so "[2024]" stays a year. */
const CITATION = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?![(:])/g;

function numbersIn(list: string): number[] {
  return list
    .split(",")
    .map((item) => Number(item.trim()))
    .filter((n) => n >= 1);
}

/** The text with fenced code blocks and inline code blanked out. */
function withoutCode(markdown: string): string {
  return markdown
    .replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\n]*$|(?![\s\S]))/gm, " ")
    .replace(/(`+)[\s\S]*?\1/g, " ");
}

/** The source numbers a reply cites, in the order first cited. */
export function citedNumbers(markdown: string): number[] {
  const found = new Set<number>();
  for (const match of withoutCode(markdown).matchAll(CITATION)) for (const n of numbersIn(match[1])) found.add(n);
  return [...found];
}

/** One piece of a text: plain text, or the number of a source it cites. */
export type CitationPiece = { text: string } | { cite: number; text: string };

/**
 * A text node split into its citations: "see [1, 2]." becomes "see [", 1,
 * ", ", 2, "]." (a lone "[1]" is one piece, so the whole "[1]" is the link).
 * Null when it cites nothing.
 */
export function splitCitations(text: string): CitationPiece[] | null {
  const pieces: CitationPiece[] = [];
  let last = 0;
  for (const match of text.matchAll(CITATION)) {
    const start = match.index;
    if (start > last) pieces.push({ text: text.slice(last, start) });
    const numbers = numbersIn(match[1]);
    if (numbers.length === 1) pieces.push({ cite: numbers[0], text: match[0] });
    else {
      pieces.push({ text: "[" });
      numbers.forEach((n, index) => {
        if (index > 0) pieces.push({ text: ", " });
        pieces.push({ cite: n, text: String(n) });
      });
      pieces.push({ text: "]" });
    }
    last = start + match[0].length;
  }
  if (pieces.length === 0) return null;
  if (last < text.length) pieces.push({ text: text.slice(last) });
  return pieces;
}

interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/** The element a citation becomes; ./citation-links.tsx renders it as a link to its source. */
export const CITATION_TAG = "citation-ref";

/** Where a citation is not one: code, a link's own text, math. */
const OPAQUE = new Set(["code", "pre", "a", "kbd", "samp", "math", "svg"]);

/** rehype plugin: each "[n]" in the reply's text becomes a citation element (see splitCitations). */
export function rehypeCitations() {
  return (tree: HastNode) => {
    const visit = (node: HastNode) => {
      if (!node.children || (node.tagName && OPAQUE.has(node.tagName))) return;
      node.children = node.children.flatMap((child) => {
        if (child.type !== "text") {
          visit(child);
          return [child];
        }
        const pieces = splitCitations(child.value ?? "");
        if (!pieces) return [child];
        return pieces.map((piece) =>
          "cite" in piece
            ? {
                type: "element",
                tagName: CITATION_TAG,
                properties: { dataCite: String(piece.cite) },
                children: [{ type: "text", value: piece.text }],
              }
            : { type: "text", value: piece.text },
        );
      });
    };
    visit(tree);
  };
}
