import { getConfig } from "~/config.server";

/**
 * Facts about the request that guards need: same-origin checks (CSRF on
 * session endpoints) and the client address, which remix-serve does not give
 * routes; behind proxies it is the X-Forwarded-For entry the outermost trusted
 * proxy added (TRUST_PROXY = how many proxies).
 */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("Origin");
  if (!origin || origin === "null") return false;
  const { appOrigin } = getConfig();
  if (appOrigin && origin === appOrigin) return true;
  const host = request.headers.get("Host") ?? new URL(request.url).host;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** The app's origin as its users reach it: APP_URL's when set (behind a proxy), else the request's own. */
export function publicOrigin(request: Request): string {
  return getConfig().appOrigin ?? new URL(request.url).origin;
}

export function clientAddress(request: Request): string | undefined {
  const hops = getConfig().trustedProxyHops;
  if (hops === 0) return undefined;
  return forwardedClientAddress(request.headers.get("X-Forwarded-For"), hops);
}

/**
 * The address the outermost trusted proxy saw. Each proxy appends the address
 * it received the request from, so with `hops` proxies that entry is `hops`
 * from the right; everything left of it came from the client and is
 * forgeable (the leftmost entry would let one client look like many and slip
 * the per-address limits; docs/configuration.md, `TRUST_PROXY`). Fewer
 * entries than proxies: the request did not come through them all, so no
 * address is known rather than a forgeable one.
 */
export function forwardedClientAddress(header: string | null, hops: number): string | undefined {
  if (!header || hops < 1) return undefined;
  // Several X-Forwarded-For headers arrive joined with ", " in one list.
  const entries = header.split(",").map((entry) => entry.trim());
  const entry = entries.length >= hops ? entries[entries.length - hops] : undefined;
  return entry || undefined;
}

/** A navigation the user made on this site or typed, not a prefetch or another site's link. */
export function isUserInitiatedSameSite(request: Request): boolean {
  const site = request.headers.get("Sec-Fetch-Site");
  if (site !== "same-origin" && site !== "none") return false;
  const purpose = `${request.headers.get("Sec-Purpose") ?? ""} ${request.headers.get("Purpose") ?? ""} ${request.headers.get("X-Moz") ?? ""}`;
  return !/prefetch|prerender/i.test(purpose);
}
