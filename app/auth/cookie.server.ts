import { getConfig } from "~/config.server";

/** The session cookie: its name, attributes and raw value (the Firebase session cookie). */
export const SESSION_COOKIE = "__session";

export function sessionMaxAgeSeconds(): number {
  return getConfig().sessionDays * 24 * 60 * 60;
}

function attributes(maxAge: number): string {
  const secure = getConfig().mode === "local" ? "" : "; Secure";
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

export function serializeSessionCookie(value: string): string {
  return `${SESSION_COOKIE}=${value}; ${attributes(sessionMaxAgeSeconds())}`;
}

export function clearSessionCookie(): string {
  return `${SESSION_COOKIE}=; ${attributes(0)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

export function readSessionCookie(request: Request): string | undefined {
  const header = request.headers.get("Cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value.length > 0 ? value : undefined;
    }
  }
  return undefined;
}
