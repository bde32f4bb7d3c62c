/**
 * A new conversation's title, from its first exchange: the gist of the
 * user's first message (its first line, Markdown marks removed, cut at a word
 * near 60 characters). No extra model call: it costs no quota or latency and
 * is the same with every model, the demo included.
 */
const MAX_TITLE = 60;

export function titleFromExchange(userText: string, replyText = ""): string {
  return summarize(userText) || summarize(replyText) || "New chat";
}

function summarize(text: string): string {
  const firstLine =
    text
      .replace(/```[\s\S]*?(```|$)/g, " ") // code blocks say little about the topic
      .split("\n")
      .map((line) => line.replace(/^\s*(#{1,6}\s+|[-*+>]\s+|\d+[.)]\s+)/, ""))
      .find((line) => /[\p{L}\p{N}]/u.test(line)) ?? "";
  const plain = firstLine
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`~]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
  if (plain.length <= MAX_TITLE) return plain.replace(/[\s:;,-]+$/, "");
  const cut = plain.slice(0, MAX_TITLE + 1);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > MAX_TITLE / 2 ? cut.slice(0, lastSpace) : plain.slice(0, MAX_TITLE)).replace(/[\s,.;:!?-]+$/, "")}…`;
}
