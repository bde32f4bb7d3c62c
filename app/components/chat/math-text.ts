/**
 * Math in a reply (client-safe, no dependencies): whether a reply has any, and
 * the delimiters models write — \( … \) and \[ … \] — turned into the $ … $ and
 * $$ … $$ that remark-math reads. Code (fenced blocks and `inline spans`) is
 * left alone, so a shell variable or a price in code is never math.
 */

const CODE = /(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(\n\2[^\n]*(?=\n|$)|$)|`+[^`\n]*`+/g;

/** Applies `change` to the text outside code only. */
function outsideCode(text: string, change: (prose: string) => string): string {
  let result = "";
  let last = 0;
  for (const match of text.matchAll(CODE)) {
    result += change(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return result + change(text.slice(last));
}

/**
 * Inline `$x$` as Pandoc reads it: no space just inside either `$`, and the
 * closing `$` not followed by a digit, so "costs $5 and $6" is no math.
 */
const INLINE_DOLLAR = /(?<![\\$\w])\$(?=[^\s$])([^$\n]*?[^\s\\$]|[^\s$])\$(?![\d$\w])/g;
const DISPLAY_LINE = /^[ \t]*\$\$([^\n]+?)\$\$[ \t]*$/gm;
const DISPLAY_BRACKETS = /\\\[([\s\S]+?)\\\]/g;
const INLINE_PARENS = /\\\(([\s\S]+?)\\\)/g;

/**
 * The math delimiters models write, as remark-math reads them (with
 * `singleDollarTextMath` off, so a lone `$` is always a dollar): display math
 * — `\[ x \]`, or `$$ x $$` alone on its line — on lines of its own; inline
 * math — `\( x \)` and Pandoc-style `$x$` — as `$$x$$` within the line.
 */
export function normalizeMathDelimiters(text: string): string {
  if (!text.includes("$") && !text.includes("\\[") && !text.includes("\\(")) return text;
  return outsideCode(text, (prose) =>
    prose
      .replace(DISPLAY_BRACKETS, (_, body: string) => `\n$$\n${body.trim()}\n$$\n`)
      .replace(DISPLAY_LINE, (_, body: string) => `$$\n${body.trim()}\n$$`)
      .replace(INLINE_PARENS, (_, body: string) => `$$${body.trim()}$$`)
      .replace(INLINE_DOLLAR, (_, body: string) => `$$${body}$$`),
  );
}

/** The same forms, without the global flag (a global regex's test() keeps state between calls). */
const MATH_FORMS = [/\$\$[\s\S]+?\$\$/, DISPLAY_BRACKETS, INLINE_PARENS, INLINE_DOLLAR].map(
  (pattern) => new RegExp(pattern.source),
);

/** Whether a reply has math in any of those forms (then its renderer loads KaTeX). */
export function hasMath(text: string): boolean {
  if (!text.includes("$") && !text.includes("\\(") && !text.includes("\\[")) return false;
  let found = false;
  outsideCode(text, (prose) => {
    found ||= MATH_FORMS.some((pattern) => pattern.test(prose));
    return prose;
  });
  return found;
}
