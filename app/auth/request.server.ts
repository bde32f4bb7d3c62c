import { getConfig } from "~/config.server";

/**
 * Facts about the request that guards need: same-origin checks (CSRF on
 * session endpoints) and the client address, which remix-serve does not give
 * routes; behind a proxy it comes from X-Forwarded-For when TRUST_PROXY is set.
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

export function clientAddress(request: Request): string | undefined {
  if (!getConfig().trustProxy) return undefined;
  const forwarded = request.headers.get("X-Forwarded-For");
  const first = forwarded?.split(",")[0]?.trim();
  return first || undefined;
}

/** A navigation the user made on this site or typed, not a prefetch or another site's link. */
export function isUserInitiatedSameSite(request: Request): boolean {
  const site = request.headers.get("Sec-Fetch-Site");
  if (site !== "same-origin" && site !== "none") return false;
  const purpose = `${request.headers.get("Sec-Purpose") ?? ""} ${request.headers.get("Purpose") ?? ""} ${request.headers.get("X-Moz") ?? ""}`;
  return !/prefetch|prerender/i.test(purpose);
}
