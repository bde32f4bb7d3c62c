import { LRUCache } from "lru-cache";
import { getConfig } from "~/config.server";
import { countCacheLookup } from "~/metrics/metrics.server";

/**
 * Short-lived caches for what every page needs and rarely changes: the
 * identity record (disabled, refresh tokens revoked), the logged-out
 * sessions list and the role. Their TTL is at most 30 s
 * (AUTH_CACHE_TTL_SECONDS; docs/decisions/002, docs/operations.md "Freshness trade-off"). Logout,
 * sign-out-everywhere, role changes and disabling evict their entries at once
 * on every instance (invalidation.server.ts; the TTL bounds a lost notice);
 * /admin/* and every action bypass the caches.
 */
export interface IdentityState {
  uid: string;
  email?: string;
  emailVerified: boolean;
  displayName?: string;
  photoURL?: string;
  disabled: boolean;
  /** Sessions whose auth_time is before this (ms since epoch) are revoked. */
  validSinceMs: number;
}

function makeCache<V extends object>() {
  const ttl = getConfig().authCacheTtlMs;
  // The clock is looked up at each call (not captured once), so tests can move it.
  return ttl > 0 ? new LRUCache<string, V>({ max: 10_000, ttl, perf: { now: () => performance.now() } }) : undefined;
}

let identities: LRUCache<string, IdentityState> | undefined | null = null;
let roles: LRUCache<string, { role: string }> | undefined | null = null;
let revocations: LRUCache<string, { revoked: boolean }> | undefined | null = null;

function identityCache() {
  if (identities === null) identities = makeCache<IdentityState>();
  return identities;
}
function roleCache() {
  if (roles === null) roles = makeCache<{ role: string }>();
  return roles;
}
function revocationCache() {
  if (revocations === null) revocations = makeCache<{ revoked: boolean }>();
  return revocations;
}

/** `value`, counted as a hit or a miss of `cache` (its hit ratio on /metrics; with caching off, every lookup misses). */
function counted<V>(cache: "identity" | "role" | "revocation", value: V | undefined): V | undefined {
  countCacheLookup(cache, value !== undefined);
  return value;
}

export const authCache = {
  getIdentity: (uid: string) => counted("identity", identityCache()?.get(uid)),
  setIdentity: (state: IdentityState) => identityCache()?.set(state.uid, state),
  getRole: (email: string) => counted("role", roleCache()?.get(email)?.role),
  setRole: (email: string, role: string) => roleCache()?.set(email, { role }),
  forgetUser(uid: string, email?: string) {
    identityCache()?.delete(uid);
    if (email) roleCache()?.delete(email);
  },
  forgetRole: (email: string) => roleCache()?.delete(email),
  /** Keyed by the session cookie's hash. */
  getRevoked: (tokenHash: string) => counted("revocation", revocationCache()?.get(tokenHash)?.revoked),
  setRevoked: (tokenHash: string, revoked: boolean) => revocationCache()?.set(tokenHash, { revoked }),
  /** Drops every entry (kept configuration): invalidations may have been missed (app/auth/invalidation.server.ts). */
  clear() {
    identities?.clear();
    roles?.clear();
    revocations?.clear();
  },
  /** For tests: start from empty caches with the current configuration. */
  reset() {
    identities = null;
    roles = null;
    revocations = null;
  },
};
