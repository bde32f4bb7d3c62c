/**
 * The chat request's size limits as plain values and functions, so the
 * browser (the composer's length hint) can import them without the request's
 * zod schema: importing ./chat-request would put zod in the assistant page's
 * first load (ADR 051). The per-role cap itself comes from the server's
 * configuration (MESSAGE_MAX_CHARS), passed to the page by its loader.
 */

/** A message's cap when MESSAGE_MAX_CHARS does not set one, in characters (UTF-16 code units). */
export const DEFAULT_MESSAGE_MAX_CHARS = 100_000;

/**
 * A prompt tool's answers together (they become the first message): short
 * forms, far below any role's cap, and within the tool form's body limit.
 */
export const MAX_MESSAGE_LENGTH = 8_000;

/** The most tools a chat's choice may switch off (app/conversation/chat-tools.ts), and the longest id. */
export const CHAT_TOOLS_OFF_MAX = 200;
export const TOOL_ID_MAX_CHARS = 170;

/**
 * The body limit of POST /api/chat for a message cap: JSON may spend up to 6
 * bytes on one UTF-16 code unit (`\u0001`; a 4-byte character is 2 units), plus
 * room for the rest of the request (ids, model, time zone) and the chat's
 * tools switched off.
 */
export function chatBodyBytes(maxChars: number): number {
  return maxChars * 6 + 16 * 1024 + CHAT_TOOLS_OFF_MAX * (TOOL_ID_MAX_CHARS + 3) * 6;
}

/** What the composer and the endpoint say about a message over the cap. */
export function messageTooLongText(length: number, max: number): string {
  return `Your message is ${length.toLocaleString("en-US")} characters long; the limit is ${max.toLocaleString("en-US")}.`;
}
