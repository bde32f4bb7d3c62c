/**
 * `redirectTo` values are honoured only for paths on this site. Anything that
 * a browser could resolve to another origin (`//host`, `/\host`, `https:…`,
 * `javascript:`, or an encoded form of these) falls back to `fallback`.
 */
export function safeRedirect(to: unknown, fallback = "/"): string {
  if (typeof to !== "string" || to.length === 0 || to.length > 2048) return fallback;
  let candidate = to;
  // Check every decoded form too: a value may be decoded again downstream.
  for (let round = 0; round < 4; round++) {
    if (!isPlainSitePath(candidate)) return fallback;
    let decoded: string;
    try {
      decoded = decodeURIComponent(candidate);
    } catch {
      return fallback;
    }
    if (decoded === candidate) break;
    candidate = decoded;
  }
  // Non-ASCII characters percent-encoded, as a browser sends them: a Location
  // header holds bytes only (a "ф" or an emoji there would make the response throw).
  try {
    return to.replace(/[^\x20-\x7e]+/g, (characters) => encodeURIComponent(characters));
  } catch {
    return fallback; // A lone surrogate cannot be encoded.
  }
}

function isPlainSitePath(value: string): boolean {
  if (!value.startsWith("/")) return false;
  if (value.startsWith("//")) return false;
  if (value.includes("\\")) return false;
  // Browsers drop tabs and newlines inside URLs, and control characters have no place here.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return false;
  const base = "http://nuvara.invalid";
  try {
    return new URL(value, base).origin === base;
  } catch {
    return false;
  }
}

/** The current path and query, for `/login?redirectTo=…`. */
export function loginPath(url: URL): string {
  return `/login?redirectTo=${encodeURIComponent(url.pathname + url.search)}`;
}
