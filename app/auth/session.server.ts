import { json, redirect } from "@remix-run/node";
import type { DecodedIdToken, UserRecord } from "firebase-admin/auth";
import { getConfig } from "~/config.server";
import { isSessionRevoked, revokeSession, sessionHash } from "~/auth/revoked-sessions.server";
import { readRole } from "~/auth/roles.server";
import { getDb } from "~/db/client.server";
import { BackendUnavailableError, logBackendFault, logBackendRecovered, withDeadline } from "~/deadline.server";
import { adminAuth } from "~/firebase.server";
import { UNUSABLE_EMAIL, UNUSABLE_EMAIL_CODE } from "./auth-errors";
import { authCache, type IdentityState } from "./auth-cache.server";
import { canHoldRole } from "./role-key";
import { publishInvalidation } from "./invalidation.server";
import { verifyEmulatorSessionCookie } from "./emulator-token.server";
import {
  clearSessionCookie,
  LOCAL_SESSION_COOKIE,
  readSessionCookie,
  serializeSessionCookie,
  sessionCookieOf,
} from "./cookie.server";
import { loginPath } from "./redirect";
import { noteRequestUser } from "~/log/request-context.server";

/**
 * The one auth module: it owns the session cookie, verifies it with
 * firebase-admin (revocation and disabled users included), resolves the role
 * from users/{email}.stripeRole, and offers getSessionUser / requireUser /
 * requireAdmin to loaders and actions. Nothing else touches the cookie.
 */

export interface SessionUser {
  uid: string;
  email: string | null;
  displayName: string | null;
  photoURL: string | null;
  emailVerified: boolean;
}

export type SessionState =
  | {
      status: "signed-in";
      user: SessionUser;
      role: string;
      isAdmin: boolean;
      /** A backend could not be reached: the role fell back to "". */
      degraded: boolean;
      /** auth_time of the session, seconds since epoch. */
      authTime: number;
    }
  | {
      status: "signed-out";
      /** The cookie was invalid (revoked, expired, malformed, disabled user): clear it. */
      clearCookie: boolean;
      /** The cookie to clear when not this mode's own (two session cookies: cookie.server.ts). */
      clearName?: string;
      /** A cookie was presented but could not be checked (backend fault): keep it. */
      degraded: boolean;
    };

export type SignedIn = Extract<SessionState, { status: "signed-in" }>;

const SIGNED_OUT: SessionState = { status: "signed-out", clearCookie: false, degraded: false };
const INVALID: SessionState = { status: "signed-out", clearCookie: true, degraded: false };
// Two session cookies (a tossed one, cookie.server.ts): signed out, and `__session` cleared, the name a sibling can plant or an old session left.
const REFUSED_COOKIES: SessionState = {
  status: "signed-out",
  clearCookie: true,
  degraded: false,
  clearName: LOCAL_SESSION_COOKIE,
};

/** firebase-admin codes meaning "this cookie will never be good": sign out and clear it. */
const INVALID_SESSION_CODES = new Set([
  "auth/session-cookie-expired",
  "auth/session-cookie-revoked",
  "auth/argument-error",
  "auth/invalid-argument",
  "auth/user-disabled",
  "auth/user-not-found",
  "auth/id-token-expired",
  "auth/invalid-session-cookie-duration",
]);

function errorCode(error: unknown): string | undefined {
  if (error && typeof error === "object" && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

function isInvalidSession(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && INVALID_SESSION_CODES.has(code);
}

function deadline<T>(backend: string, work: Promise<T>): Promise<T> {
  return withDeadline(backend, getConfig().backendTimeoutMs, work);
}

/** Signature and expiry (no revocation): local, with no round trip. */
function verifyCookie(cookie: string): Promise<DecodedIdToken> {
  const config = getConfig();
  if (config.authEmulatorHost) {
    return Promise.resolve().then(() => verifyEmulatorSessionCookie(cookie, config.projectId));
  }
  return deadline("identity", adminAuth().verifySessionCookie(cookie, false));
}

function identityFromRecord(record: UserRecord): IdentityState {
  return {
    uid: record.uid,
    email: record.email,
    emailVerified: record.emailVerified,
    displayName: record.displayName,
    photoURL: record.photoURL,
    disabled: record.disabled,
    validSinceMs: record.tokensValidAfterTime ? new Date(record.tokensValidAfterTime).getTime() : 0,
  };
}

/**
 * Pages that miss the cache at the same moment (it expired under load) share
 * one read per key instead of each sending their own. Fresh reads (actions,
 * /admin) are never shared: each must start after its own request did.
 */
const inFlight = new Map<string, Promise<unknown>>();

function sharedRead<T>(key: string, fresh: boolean, read: () => Promise<T>): Promise<T> {
  if (fresh) return read();
  const current = inFlight.get(key) as Promise<T> | undefined;
  if (current) return current;
  const promise = read().finally(() => inFlight.delete(key));
  inFlight.set(key, promise);
  return promise;
}

async function loadIdentity(uid: string, fresh: boolean): Promise<IdentityState> {
  const cached = fresh ? undefined : authCache.getIdentity(uid);
  if (cached) return cached;
  return sharedRead(`identity:${uid}`, fresh, async () => {
    const state = identityFromRecord(await deadline("identity", adminAuth().getUser(uid)));
    logBackendRecovered("identity");
    authCache.setIdentity(state);
    return state;
  });
}

async function loadRole(email: string, fresh: boolean): Promise<string> {
  const cached = fresh ? undefined : authCache.getRole(email);
  if (cached !== undefined) return cached;
  return sharedRead(`role:${email}`, fresh, async () => {
    const role = await deadline("firestore", readRole(email));
    logBackendRecovered("firestore");
    authCache.setRole(email, role);
    return role;
  });
}

async function loadRevoked(tokenHash: string, fresh: boolean): Promise<boolean> {
  const cached = fresh ? undefined : authCache.getRevoked(tokenHash);
  if (cached !== undefined) return cached;
  return sharedRead(`revoked:${tokenHash}`, fresh, async () => {
    const revoked = await deadline(
      "postgres",
      getDb().then((db) => isSessionRevoked(db, tokenHash)),
    );
    logBackendRecovered("postgres");
    authCache.setRevoked(tokenHash, revoked);
    return revoked;
  });
}

// The chat endpoint reads a request's session twice (peekSession, then
// getSessionUser): its cookie is verified once.
const verifiedCookies = new WeakMap<Request, Promise<DecodedIdToken>>();

function verifyRequestCookie(request: Request, cookie: string): Promise<DecodedIdToken> {
  let verified = verifiedCookies.get(request);
  if (!verified) {
    verified = verifyCookie(cookie);
    verifiedCookies.set(request, verified);
  }
  return verified;
}

async function resolveSession(request: Request, cookie: string, fresh: boolean): Promise<SessionState> {
  let decoded: DecodedIdToken;
  try {
    // Signature and expiry only (local, keys cached); revocation is checked
    // below together with the role, so a page costs one round trip, not two.
    // The identity service's revocation has a granularity of one second, so
    // logged-out sessions are also listed in PostgreSQL.
    decoded = await verifyRequestCookie(request, cookie);
  } catch (error) {
    if (isInvalidSession(error)) return INVALID;
    logBackendFault("identity", "verifying a session cookie", error);
    return { status: "signed-out", clearCookie: false, degraded: true };
  }
  noteRequestUser(decoded.uid); // the request's later log lines name the account (ADR 052)

  const email = decoded.email ?? null;
  // The role is read for the cookie's email claim alongside the identity
  // record (one round trip, not two), and used only when that claim is the
  // record's current email (signedInState signs the session out otherwise):
  // so it is always the role of the account's current address.
  const [identity, role, revoked] = await Promise.allSettled([
    loadIdentity(decoded.uid, fresh),
    email ? loadRole(email, fresh) : Promise.resolve(""),
    loadRevoked(sessionHash(cookie), fresh),
  ]);
  if (revoked.status === "fulfilled" && revoked.value) return INVALID;

  const baseUser: SessionUser = {
    uid: decoded.uid,
    email,
    displayName: (decoded.name as string | undefined) ?? null,
    photoURL: decoded.picture ?? null,
    emailVerified: decoded.email_verified ?? false,
  };

  if (identity.status === "rejected") {
    if (isInvalidSession(identity.reason)) return INVALID;
    // Cannot check revocation: keep the visitor and the cookie, but grant no role.
    logBackendFault("identity", `loading user ${decoded.uid}`, identity.reason);
    return {
      status: "signed-in",
      user: baseUser,
      role: "",
      isAdmin: false,
      degraded: true,
      authTime: decoded.auth_time,
    };
  }
  if (revoked.status === "rejected") {
    logBackendFault("postgres", "checking logged-out sessions", revoked.reason);
  }
  if (role.status === "rejected") logBackendFault("firestore", "reading a role (users/{email})", role.reason); // no address in logs (ADR 052)
  // Without the role or the logged-out list, no role is granted.
  return signedInState(
    decoded,
    identity.value,
    role.status === "fulfilled" && revoked.status === "fulfilled" ? role.value : undefined,
  );
}

/**
 * A cookie (or ID token) speaks for the account as it was at sign-in; the
 * role and "verified" belong to the account's current address. When the
 * address changed since, the credential is dead, whatever the clock says:
 * the identity service's revocation counts whole seconds, so a cookie minted
 * in the second of an email change would otherwise survive it, with the old
 * address's role and the new address's verification (ADR 042).
 */
function emailClaimIsCurrent(decoded: DecodedIdToken, record: IdentityState): boolean {
  return (decoded.email ?? undefined) === (record.email ?? undefined);
}

/**
 * The session from a verified cookie, the identity record and the role of
 * the record's email (undefined: the role or the logged-out list could not
 * be read, so no role is granted).
 */
function signedInState(decoded: DecodedIdToken, record: IdentityState, role: string | undefined): SessionState {
  // Revocation keeps `<` as Firebase does: an account's tokens are valid
  // since the second it was created, and a sign-in in that very second is
  // legitimate. The same-second case that matters is caught by the email rule.
  if (record.disabled || decoded.auth_time * 1000 < record.validSinceMs || !emailClaimIsCurrent(decoded, record)) {
    authCache.forgetUser(decoded.uid, decoded.email);
    if (record.email) authCache.forgetRole(record.email);
    return INVALID;
  }
  const user: SessionUser = {
    uid: record.uid,
    email: record.email ?? null,
    displayName: record.displayName ?? (decoded.name as string | undefined) ?? null,
    photoURL: record.photoURL ?? decoded.picture ?? null,
    emailVerified: record.emailVerified,
  };
  if (role === undefined) {
    return { status: "signed-in", user, role: "", isAdmin: false, degraded: true, authTime: decoded.auth_time };
  }
  return signedInAs(user, role, decoded.auth_time);
}

/** A signed-in state with its role read. */
function signedInAs(user: SessionUser, role: string, authTime: number): SignedIn {
  return {
    status: "signed-in",
    user,
    role,
    // Roles are keyed by email: only a verified address may hold "admin",
    // or whoever first signed up with an admin's address would be admin.
    isAdmin: role === "admin" && user.emailVerified,
    degraded: false,
    authTime,
  };
}

/** The address each key owner last had, as a hint only (checked against the user read with it). */
const keyOwnerEmails = new Map<string, string>();
const KEY_OWNERS_REMEMBERED = 10_000;

function rememberKeyOwnerEmail(uid: string, email: string | undefined) {
  keyOwnerEmails.delete(uid);
  if (!email) return;
  keyOwnerEmails.set(uid, email);
  // A Map iterates in insertion order: the first key is the owner seen longest ago.
  if (keyOwnerEmails.size > KEY_OWNERS_REMEMBERED) keyOwnerEmails.delete(keyOwnerEmails.keys().next().value!);
}

/**
 * The account a personal API key acts for (docs/decisions/099), read fresh
 * like an action's: the key acts with its owner's role as it is now, and a
 * disabled or deleted owner's key does nothing ("gone"). A backend that
 * cannot be read is "unavailable", never a guessed role.
 */
export async function accountForKey(uid: string): Promise<SignedIn | "gone" | "unavailable"> {
  // Both read fresh, side by side: the role under the address this instance last saw for the
  // account. An address changed since then is read again under the new one, after the user.
  const seenEmail = keyOwnerEmails.get(uid);
  const [identity, roleUnderSeen] = await Promise.allSettled([
    loadIdentity(uid, true),
    seenEmail ? loadRole(seenEmail, true) : Promise.resolve(""),
  ]);
  if (identity.status === "rejected") {
    if (isInvalidSession(identity.reason)) return "gone";
    logBackendFault("identity", `loading user ${uid} for an API key`, identity.reason);
    return "unavailable";
  }
  const record = identity.value;
  if (record.disabled) return "gone";
  rememberKeyOwnerEmail(uid, record.email);
  let role = "";
  try {
    if (record.email && record.email === seenEmail) role = settledValue(roleUnderSeen);
    else if (record.email) role = await loadRole(record.email, true);
  } catch (error) {
    logBackendFault("firestore", "reading a role (users/{email}) for an API key", error);
    return "unavailable";
  }
  noteRequestUser(uid);
  const user: SessionUser = {
    uid: record.uid,
    email: record.email ?? null,
    displayName: record.displayName ?? null,
    photoURL: record.photoURL ?? null,
    emailVerified: record.emailVerified,
  };
  // No sign-in time: a key is not a session.
  return signedInAs(user, role, 0);
}

/**
 * What can be known about a session with no round trip: the account its
 * cookie names (signature and expiry checked), and the whole session state
 * if this instance's short-lived caches hold it. For work that may start
 * early and is only shown once getSessionUser has confirmed the session
 * freshly (the chat endpoint starts the model request on it).
 */
export interface SessionPeek {
  uid: string;
  /** Signed in as the caches last saw it; null when an entry is missing. */
  cached: SignedIn | null;
}

export async function peekSession(request: Request): Promise<SessionPeek | null> {
  const cookie = readSessionCookie(request);
  if (!cookie) return null;
  let decoded: DecodedIdToken;
  try {
    decoded = await verifyRequestCookie(request, cookie);
  } catch {
    return null;
  }
  const identity = authCache.getIdentity(decoded.uid);
  // Keyed by the record's current email, never the cookie's claim (ADR 042).
  const role = identity?.email ? authCache.getRole(identity.email) : "";
  const revoked = authCache.getRevoked(sessionHash(cookie));
  if (!identity || role === undefined || revoked !== false) return { uid: decoded.uid, cached: null };
  const state = signedInState(decoded, identity, role);
  return { uid: decoded.uid, cached: state.status === "signed-in" ? state : null };
}

/** Actions and /admin/* read fresh; other pages may use the short-lived caches. */
function needsFreshState(request: Request): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return true;
  return new URL(request.url).pathname.startsWith("/admin");
}

// The root loader and a route loader of one document request share one
// lookup (a fresh one serves both).
const perRequest = new WeakMap<Request, { fresh: boolean; state: Promise<SessionState> }>();

export function getSessionUser(
  request: Request,
  { fresh = needsFreshState(request) }: { fresh?: boolean } = {},
): Promise<SessionState> {
  const memo = perRequest.get(request);
  if (memo && (memo.fresh || !fresh)) return memo.state;
  const cookie = sessionCookieOf(request);
  const state =
    cookie.status === "one"
      ? resolveSession(request, cookie.value, fresh)
      : Promise.resolve(cookie.status === "refused" ? REFUSED_COOKIES : SIGNED_OUT);
  perRequest.set(request, { fresh, state });
  return state;
}

/** Headers a response needs for this session state (clearing a dead cookie). */
export function sessionHeaders(state: SessionState): HeadersInit {
  return state.status === "signed-out" && state.clearCookie
    ? { "Set-Cookie": clearSessionCookie(state.clearName) }
    : {};
}

export async function requireUser(request: Request): Promise<SignedIn> {
  const state = await getSessionUser(request);
  if (state.status === "signed-in") return state;
  if (state.degraded) {
    throw json({ error: "Login cannot be checked right now. Please try again shortly." }, { status: 503 });
  }
  throw redirect(loginPath(new URL(request.url)), { headers: sessionHeaders(state) });
}

/**
 * requireUser for the account's API routes (fresh: they are actions). A
 * visitor whose session ended meanwhile comes back to the dashboard after
 * signing in, not to the API route itself.
 */
export async function requireAccountUser(request: Request): Promise<SignedIn> {
  try {
    return await requireUser(request);
  } catch (thrown) {
    if (thrown instanceof Response && thrown.status >= 300 && thrown.status < 400) {
      const headers = new Headers(thrown.headers);
      headers.set("Location", "/login?redirectTo=%2Fdashboard");
      throw new Response(null, { status: thrown.status, headers });
    }
    throw thrown;
  }
}

export async function requireAdmin(request: Request): Promise<SignedIn> {
  const state = await requireUser(request);
  if (!state.isAdmin) {
    // Fail closed: an admin whose role cannot be read right now is not let in.
    if (state.degraded) {
      throw json({ error: "The admin area is unavailable right now. Please try again shortly." }, { status: 503 });
    }
    throw json({ error: "This page is for admins only." }, { status: 403 });
  }
  return state;
}

// ---- creating and destroying sessions -------------------------------------

const MAX_SIGN_IN_AGE_SECONDS = 5 * 60;

export class SessionError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 503,
    message: string,
    /** For the sign-in page, which words a known code itself (auth-errors.ts). */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * An address that cannot key its users/{email} role record cannot start a
 * session (docs/decisions/075). An account already signed in on this browser
 * may still confirm its identity, so that it can delete itself.
 */
export async function refuseUnusableAddress(request: Request, decoded: DecodedIdToken): Promise<void> {
  const email = decoded.email?.toLowerCase();
  if (!email || canHoldRole(email)) return;
  const current = await getSessionUser(request, { fresh: true });
  if (current.status === "signed-in" && current.user.uid === decoded.uid) return;
  throw new SessionError(403, UNUSABLE_EMAIL, UNUSABLE_EMAIL_CODE);
}

/** Verifies a fresh ID token for sign-in: signature, age, then the account's state. */
export async function verifySignInToken(idToken: string): Promise<DecodedIdToken> {
  const unavailable = (error: unknown) => {
    logBackendFault("identity", "verifying a login", error);
    return new SessionError(503, "Login is unavailable right now. Please try again shortly.");
  };
  let decoded: DecodedIdToken;
  try {
    decoded = await deadline("identity", adminAuth().verifyIdToken(idToken, false));
  } catch (error) {
    if (error instanceof BackendUnavailableError || !errorCode(error)?.startsWith("auth/")) throw unavailable(error);
    throw new SessionError(401, "The login token is invalid or expired. Please log in again.");
  }
  // Only a recent sign-in may become a long session (Firebase's guidance).
  if (Date.now() / 1000 - decoded.auth_time > MAX_SIGN_IN_AGE_SECONDS) {
    throw new SessionError(401, "The login is too old. Please log in again.");
  }
  let identity: IdentityState;
  try {
    identity = await loadIdentity(decoded.uid, true);
  } catch (error) {
    if (isInvalidSession(error)) throw new SessionError(401, "This account no longer exists.");
    throw unavailable(error);
  }
  if (identity.disabled) throw new SessionError(401, "This account has been disabled.");
  if (decoded.auth_time * 1000 < identity.validSinceMs) {
    throw new SessionError(401, "This login has been revoked. Please log in again.");
  }
  // A token minted before the account's email changed names an address the
  // account no longer has: it would become a cookie signed out at once.
  if (!emailClaimIsCurrent(decoded, identity)) {
    throw new SessionError(401, "This account's email address has changed. Please log in again.");
  }
  return decoded;
}

/** Exchanges a verified ID token for a Firebase session cookie; returns Set-Cookie. */
export async function createSessionCookie(idToken: string, decoded: DecodedIdToken): Promise<string> {
  const expiresIn = getConfig().sessionDays * 24 * 60 * 60 * 1000;
  try {
    const cookie = await deadline("identity", adminAuth().createSessionCookie(idToken, { expiresIn }));
    // A new sign-in starts from fresh identity and role data.
    authCache.forgetUser(decoded.uid, decoded.email);
    return serializeSessionCookie(cookie);
  } catch (error) {
    logBackendFault("identity", "creating a session cookie", error);
    throw new SessionError(503, "Login is unavailable right now. Please try again shortly.");
  }
}

/**
 * Ends the session: lists it as logged out in PostgreSQL and revokes the
 * user's refresh tokens (so this cookie, and any copy of it, is refused on
 * every instance), evicts the caches on every instance at once
 * (invalidation.server.ts), and returns Set-Cookie.
 */
export async function destroySession(request: Request): Promise<string> {
  const cookie = readSessionCookie(request);
  if (!cookie) return clearSessionCookie();
  let decoded: DecodedIdToken;
  try {
    decoded = await verifyCookie(cookie);
  } catch (error) {
    // An invalid cookie has nothing to revoke; a fault must not keep the cookie.
    if (!isInvalidSession(error)) logBackendFault("identity", "reading a session to end it", error);
    return clearSessionCookie();
  }
  const tokenHash = sessionHash(cookie);
  authCache.setRevoked(tokenHash, true);
  authCache.forgetUser(decoded.uid, decoded.email);
  const results = await Promise.allSettled([
    deadline(
      "postgres",
      getDb().then((db) => revokeSession(db, tokenHash, new Date(decoded.exp * 1000))),
    ),
    deadline("identity", adminAuth().revokeRefreshTokens(decoded.uid)),
  ]);
  for (const result of results) {
    if (result.status === "rejected") logBackendFault("session", "ending a session", result.reason);
  }
  await publishInvalidation({ uid: decoded.uid, email: decoded.email, session: tokenHash, reason: "logout" });
  return clearSessionCookie();
}

/** A settled promise's value, or its reason thrown again. */
function settledValue<T>(settled: PromiseSettledResult<T>): T {
  if (settled.status === "rejected") throw settled.reason;
  return settled.value;
}
