/**
 * The chat request's size limits as plain constants, so the browser (the
 * composer's length hint) can import them without the request's zod schema:
 * importing ./chat-request would put zod in the assistant page's first load
 * (ADR 051).
 */

/** The longest message the chat endpoint accepts. */
export const MAX_MESSAGE_LENGTH = 8_000;
/** Far above any valid request; a larger body is refused before it is parsed. */
export const MAX_CHAT_BODY_BYTES = 64 * 1024;
