import { z } from "zod";

/**
 * Text PostgreSQL can store and the log cannot be forged with: a NUL byte or
 * a lone UTF-16 surrogate makes an INSERT fail (so a save that was meant to
 * succeed fails on purpose), and neither can come from a person typing.
 * Every field a user writes is checked with this before any work is done, so
 * bad input gets a 400 with a clear message instead of a 500 or a 503.
 */
// A NUL, or a high surrogate not followed by a low one, or a low one not preceded by a high one.
// eslint-disable-next-line no-control-regex -- finding the NUL control character is the point.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_TEXT_MESSAGE =
  "The text contains characters that cannot be stored (a NUL byte or a broken Unicode character). Remove them and try again.";

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** A zod string that refuses unstorable characters; chain limits after it. */
export function storableString(message: string = UNSTORABLE_TEXT_MESSAGE) {
  return z.string().refine(isStorableText, { message });
}
