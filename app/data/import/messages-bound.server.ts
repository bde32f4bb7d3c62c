import { IMPORT_LIMITS } from "./normalized.server";

/** Why a conversation with a message past the bound is refused, in words fit to show. */
export function tooLong(chars: number): string {
  return `one of its messages is ${chars.toLocaleString("en-US")} characters long; the limit is ${IMPORT_LIMITS.messageChars.toLocaleString("en-US")}`;
}
