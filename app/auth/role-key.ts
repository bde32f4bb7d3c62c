/**
 * Whether an email address can key its users/{email} role record (client-safe:
 * the sign-up form checks before an account is made; docs/decisions/075).
 * Firestore reads "/" in a document id as a path separator, refuses "." and
 * "..", ids of the form `__…__` and ids over 1,500 bytes, and needs valid
 * Unicode: such an address cannot hold a role, and cannot sign in here.
 */

/** Firestore's limit on a document id, in UTF-8 bytes. */
const MAX_ID_BYTES = 1_500;

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const BROKEN_UNICODE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `email` cannot be the id of users/{email}, in words for an admin; null when it can. */
export function roleKeyProblem(email: string): string | null {
  if (email === "") return "it is empty";
  if (email.includes("/")) return "it contains “/”";
  if (email === "." || email === "..") return "it is “.” or “..”";
  if (/^__.*__$/s.test(email)) return "it starts and ends with “__”";
  if (BROKEN_UNICODE.test(email)) return "it is not valid Unicode";
  if (new TextEncoder().encode(email).length > MAX_ID_BYTES) return "it is longer than 1,500 bytes";
  return null;
}

/** Whether `email` can hold a role (key a users/{email} document). */
export function canHoldRole(email: string): boolean {
  return roleKeyProblem(email) === null;
}
