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
  return to;
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
