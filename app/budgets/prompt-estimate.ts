import type { ChatMessage } from "~/conversation/message-types";

/**
 * How many tokens a prompt will be, estimated before the model is asked (the
 * budget hold, docs/decisions/072). Deliberately on the high side — a hold is
 * an upper bound and the real usage settles it: about four characters a
 * token for English (fewer for other scripts, so every character beyond
 * ASCII counts as a token), a few tokens per message for the chat format, and
 * attachments at the most the model may be given of them.
 */

/** Whole documents are given up to 32,000 characters in all (app/attachments/model-context.server.ts). */
export const DOCUMENTS_TOKENS = 8_000;
/** An image as vision models count it, at most (a 2048×2048 tile set). */
export const IMAGE_TOKENS = 1_600;
const PER_MESSAGE_TOKENS = 4;

export function estimateTextTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const char of text) {
    if (char.charCodeAt(0) < 128) ascii += 1;
    else other += 1;
  }
  return Math.ceil(ascii / 4) + other;
}

export function estimatePromptTokens(system: string, history: ChatMessage[], { vision }: { vision: boolean }): number {
  let tokens = estimateTextTokens(system) + PER_MESSAGE_TOKENS;
  let documents = false;
  for (const message of history) {
    tokens += PER_MESSAGE_TOKENS;
    for (const part of message.parts) {
      if (part.type === "text") tokens += estimateTextTokens(part.text);
      else if (part.type === "data-attachment") {
        if (part.data.kind === "image") tokens += vision ? IMAGE_TOKENS : 0;
        else documents = true;
      } else if (part.type.startsWith("tool-")) tokens += estimateTextTokens(JSON.stringify(part));
    }
  }
  return tokens + (documents ? DOCUMENTS_TOKENS : 0);
}
