/**
 * A reply's Markdown as the plain text a reader sees, for places that show
 * a line of it (the admin Feedback page). Marks are removed only where
 * Markdown reads them as marks: "19.99 * 3" and "snake_case_name" keep
 * their characters, "**bold**" loses its asterisks. What a renderer would
 * show literally (raw HTML, an unmatched "*") is kept as it is.
 */

/** Code blocks keep their code; the fences go. */
function unfence(text: string): string {
  return text.replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n([\s\S]*?)(?:^ {0,3}\1[^\n]*$|(?![\s\S]))/gm, "$2");
}

/** Line-level marks: headings, quotes, list bullets and numbers, rules, table rules and pipes. */
function unmarkLines(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      if (/^ {0,3}([-*_])( *\1){2,} *$/.test(line)) return "";
      if (/^ {0,3}\|?( *:?-+:? *\|)+ *:?-*:? *\|? *$/.test(line)) return "";
      let plain = line
        .replace(/^ {0,3}(> ?)+/, "")
        .replace(/^ {0,3}#{1,6}(\s+|$)/, "")
        .replace(/^(\s*)[-*+]\s+\[[ xX]\]\s+/, "$1")
        .replace(/^(\s*)[-*+]\s+/, "$1")
        .replace(/\s+#+\s*$/, "");
      if (/^\s*\|.*\|\s*$/.test(plain)) {
        plain = plain
          .trim()
          .slice(1, -1)
          .split("|")
          .map((cell) => cell.trim())
          .join(" · ");
      }
      return plain;
    })
    .join("\n");
}

/** Inline marks: code spans, images, links, emphasis, strikethrough, escapes. A private-use character holds code spans aside. */
function unmarkInline(text: string): string {
  const codes: string[] = [];
  // Code spans first, held aside: nothing inside them is a mark.
  const held = text.replace(/(`+)([^`][\s\S]*?)\1(?!`)/g, (_, __, code: string) => {
    codes.push(code.trim());
    return `\uE000${codes.length - 1}\uE000`;
  });
  const plain = held
    .replace(/!\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, "$1")
    // Emphasis: the mark touches a word on its inner side and no word on its outer side.
    .replace(/(?<![\w*\\])(\*\*|__)(?=\S)([\s\S]*?\S)\1(?![\w*])/g, "$2")
    .replace(/(?<![\w*\\])([*_])(?=[^\s*_])([^\n]*?[^\s*_\\])\1(?![\w*])/g, "$2")
    .replace(/(?<![\w~\\])~~(?=\S)([\s\S]*?\S)~~(?![\w~])/g, "$1")
    .replace(/\\([\\`*_{}[\]()#+\-.!|~>])/g, "$1");
  return plain.replace(/\uE000(\d+)\uE000/g, (_, index: string) => codes[Number(index)]);
}

/** The Markdown as plain text, its line breaks kept. */
export function markdownToPlainText(markdown: string): string {
  return unmarkInline(unmarkLines(unfence(markdown.replace(/\r\n?/g, "\n")))).trim();
}

/** A one-paragraph excerpt of the plain text, cut at a word near `max` characters. */
export function plainExcerpt(markdown: string, max: number): string {
  const plain = markdownToPlainText(markdown).replace(/\s+/g, " ").trim();
  if (plain.length <= max) return plain;
  const cut = plain.slice(0, max);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > max * 0.6 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}
