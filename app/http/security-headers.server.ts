import { HOST_SESSION_COOKIE, LOCAL_SESSION_COOKIE } from "~/auth/cookie.server";
import { getConfig } from "~/config.server";

/**
 * Security headers for every document and data response (OWASP ASVS web
 * front-end chapter): a per-response CSP nonce for Remix's scripts, no
 * framing, no MIME sniffing, a strict referrer policy, HSTS over HTTPS, and
 * no caching of anything served to a signed-in visitor.
 */
export function createNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

function contentSecurityPolicy(nonce: string): string {
  const { publicFirebase, mode, devReloadOrigin } = getConfig();
  // The login page talks to the identity service (the Auth emulator in local mode).
  const identity =
    mode === "local" && publicFirebase.authEmulatorUrl
      ? [publicFirebase.authEmulatorUrl]
      : ["https://identitytoolkit.googleapis.com", "https://securetoken.googleapis.com"];
  const authFrames = [
    ...(publicFirebase.authDomain ? [`https://${publicFirebase.authDomain}`] : []),
    ...(publicFirebase.authEmulatorUrl ? [publicFirebase.authEmulatorUrl] : []),
  ];
  return [
    "default-src 'self'",
    // strict-dynamic: scripts the nonced scripts load (route chunks, the
    // identity provider's popup helper) are trusted; nothing inline else.
    `script-src 'nonce-${nonce}' 'strict-dynamic' 'self'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https://lh3.googleusercontent.com https://*.googleusercontent.com",
    `connect-src 'self' ${[...identity, ...liveReload(devReloadOrigin)].join(" ")}`,
    `frame-src 'self' ${["https://apis.google.com", ...authFrames].join(" ")}`,
    "font-src 'self'",
    // The service worker (public/sw.js): strict-dynamic above would not let 'self' load it.
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** npm run dev: pages reload through the dev server's WebSocket (never in a production build). */
function liveReload(origin: string | undefined): string[] {
  return origin ? [origin, origin.replace(/^http/, "ws")] : [];
}

function isHttps(request: Request): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  return getConfig().trustProxy && request.headers.get("X-Forwarded-Proto") === "https";
}

function hasSession(request: Request): boolean {
  // Either name (`__Host-session`, or `__session` in local mode): even a refused pair of cookies makes the answer private.
  const cookies = request.headers.get("Cookie") ?? "";
  return cookies.includes(`${LOCAL_SESSION_COOKIE}=`) || cookies.includes(`${HOST_SESSION_COOKIE}=`);
}

export function applySecurityHeaders(headers: Headers, request: Request, nonce?: string) {
  if (nonce) headers.set("Content-Security-Policy", contentSecurityPolicy(nonce));
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("X-Frame-Options", "DENY");
  headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()");
  headers.set("Cross-Origin-Opener-Policy", "same-origin-allow-popups");
  if (isHttps(request)) headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  const path = new URL(request.url).pathname;
  if (hasSession(request) || path.startsWith("/api/") || path.startsWith("/admin")) {
    headers.set("Cache-Control", "private, no-store");
  }
  headers.delete("X-Powered-By");
}

/**
 * An API response (JSON, a download, an event stream) is never a document:
 * a CSP that allows nothing keeps it inert even if a browser is made to
 * render it, and nothing of it is cached.
 */
export function applyApiHeaders(headers: Headers, request: Request) {
  // A stream keeps its no-transform: remix-serve's compression would otherwise buffer it.
  const streamed = /no-transform/.test(headers.get("Cache-Control") ?? "");
  applySecurityHeaders(headers, request);
  headers.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; sandbox");
  headers.set("Cache-Control", streamed ? "no-store, no-transform" : "no-store");
}
