import { getConfig } from "~/config.server";

/**
 * The session cookie: its name, attributes and raw value (the Firebase session cookie).
 *
 * Outside local mode it is `__Host-session`: browsers accept a `__Host-`
 * cookie only from this very host, Secure, with Path=/ and no Domain, so a
 * sibling subdomain cannot plant one next to ours (cookie tossing).
 * Local mode serves plain http://localhost, where Secure cookies are not
 * guaranteed, so it keeps `__session`.
 *
 * A request carrying two session cookies (twice one name, or both names) is
 * refused as a whole: which one the user meant cannot be told, and taking
 * the first let a planted cookie swap the victim's session for the
 * attacker's.
 */
export const LOCAL_SESSION_COOKIE = "__session";
export const HOST_SESSION_COOKIE = "__Host-session";

export function sessionCookieName(): string {
  return getConfig().mode === "local" ? LOCAL_SESSION_COOKIE : HOST_SESSION_COOKIE;
}

export function sessionMaxAgeSeconds(): number {
  return getConfig().sessionDays * 24 * 60 * 60;
}

function attributes(maxAge: number): string {
  const secure = getConfig().mode === "local" ? "" : "; Secure";
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

export function serializeSessionCookie(value: string): string {
  return `${sessionCookieName()}=${value}; ${attributes(sessionMaxAgeSeconds())}`;
}

/**
 * Set-Cookie that deletes the session cookie of this mode, or `name`: for
 * refused cookies that is `__session`, the one a sibling can plant and the
 * name sessions had before `__Host-session` (a left-over one would otherwise
 * make every later request carry two).
 */
export function clearSessionCookie(name: string = sessionCookieName()): string {
  return `${name}=; ${attributes(0)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

export type SessionCookie =
  | { status: "none" }
  | { status: "one"; value: string }
  /** Two session cookies, or in real mode one under the old name `__session`: signed out, and `__session` cleared. */
  | { status: "refused" };

/** The session cookie of a request, from its Cookie header (names compared exactly, as browsers send them). */
export function sessionCookieOf(request: Request): SessionCookie {
  const header = request.headers.get("Cookie");
  if (!header) return { status: "none" };
  const name = sessionCookieName();
  let value: string | undefined;
  let ours = 0;
  let others = 0;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    const key = part.slice(0, eq).trim();
    if (key === name) {
      ours++;
      value = part.slice(eq + 1).trim();
    } else if (key === LOCAL_SESSION_COOKIE || key === HOST_SESSION_COOKIE) {
      others++;
    }
  }
  if (ours + others > 1) return { status: "refused" };
  // Real mode never sets `__session`: one alone is left over from before, or planted.
  if (others === 1) return name === HOST_SESSION_COOKIE ? { status: "refused" } : { status: "none" };
  if (ours === 1 && value) return { status: "one", value };
  return { status: "none" };
}

/** The session cookie's value, when the request carries exactly one (see sessionCookieOf). */
export function readSessionCookie(request: Request): string | undefined {
  const cookie = sessionCookieOf(request);
  return cookie.status === "one" ? cookie.value : undefined;
}
