/**
 * The request that asks a model for a new chat's title
 * (app/chat/generated-title.server.ts). Its system message starts with
 * TITLE_REQUEST_MARK, which is how the scripted model server of the tests
 * tells a title request from a reply (tests/support/model-server.ts).
 */
export const TITLE_REQUEST_MARK = "Write a title for this conversation.";

export const TITLE_SYSTEM_PROMPT = `${TITLE_REQUEST_MARK} Answer with the title alone: 3 to 6 words, in the language of the user's message, no quotes, no final period.`;

/** What the title is written from: the start of the first message and of its reply. */
export function titlePrompt(userText: string, replyText: string): string {
  const cut = (text: string) => (text.length > 1_500 ? `${text.slice(0, 1_500)}…` : text);
  return `User's message:\n${cut(userText)}\n\nAssistant's reply:\n${cut(replyText)}`;
}

/** Whether a chat completion request (as the model server sees it) asks for a title. */
export function isTitleRequest(body: { messages?: Array<{ role: string; content?: unknown }> } | undefined): boolean {
  const first = body?.messages?.[0];
  return first?.role === "system" && typeof first.content === "string" && first.content.startsWith(TITLE_REQUEST_MARK);
}

/** A model's answer as a title: one line, without quotes, a "Title:" label or a final period. */
export function cleanTitle(text: string, maxLength: number): string {
  const line =
    text
      .replace(/^\s*title\s*:\s*/i, "")
      .split("\n")
      .map((part) => part.trim())
      .find(Boolean) ?? "";
  const plain = line
    .replace(/^["'“”‘’«»*_#`]+|["'“”‘’«»*_`]+$/g, "")
    .replace(/[.。]+$/, "")
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > maxLength ? `${plain.slice(0, maxLength - 1).trimEnd()}…` : plain;
}
