/**
 * A new conversation's first title, from its first exchange: the gist of the
 * user's first message (its first line, Markdown marks removed, cut at a word
 * near 60 characters). It is listed at once and kept when no generated title
 * replaces it (app/chat/generated-title.server.ts, docs/decisions/086), so it
 * must keep the text's meaning: only real Markdown goes — emphasis around
 * words, links, inline code's backticks, headings, list and quote marks, code
 * fences — and "19.99 * 3 * 1.08" stays as written.
 */
const MAX_TITLE = 60;

export function titleFromExchange(userText: string, replyText = ""): string {
  return summarize(userText) || summarize(replyText) || "New chat";
}

/** Emphasis: the same mark (or pair) hugging text on both sides, not inside a word (snake_case, 2*3*4). */
const EMPHASIS = [
  /(?<![\w*])(\*\*\*|\*\*|\*)(?=\S)(.+?)(?<=\S)\1(?![\w*])/g,
  /(?<![\w_])(___|__|_)(?=\S)(.+?)(?<=\S)\1(?![\w_])/g,
  /(?<!~)(~~)(?=\S)(.+?)(?<=\S)\1(?!~)/g,
];

function stripInlineMarkdown(line: string): string {
  let text = line
    .replace(/!?\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, "$1")
    .replace(/(`+)([^`]+?)\1/g, (_match, _ticks: string, code: string) => code.trim());
  for (const pattern of EMPHASIS) text = text.replace(pattern, "$2");
  return text;
}

function summarize(text: string): string {
  const firstLine =
    text
      .replace(/^\s*(```|~~~)[\s\S]*?(^\s*\1|$(?![\s\S]))/gm, " ") // code blocks say little about the topic
      .split("\n")
      .map((line) => line.replace(/^\s*(#{1,6}\s+|(?:>\s*)+|[-*+]\s+|\d+[.)]\s+)/, ""))
      .find((line) => /[\p{L}\p{N}]/u.test(line)) ?? "";
  const plain = stripInlineMarkdown(firstLine).replace(/\s+/g, " ").trim();
  if (plain.length <= MAX_TITLE) return plain.replace(/[\s:;,-]+$/, "");
  const cut = plain.slice(0, MAX_TITLE + 1);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > MAX_TITLE / 2 ? cut.slice(0, lastSpace) : plain.slice(0, MAX_TITLE)).replace(/[\s,.;:!?-]+$/, "")}…`;
}
