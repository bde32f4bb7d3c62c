import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { authCache } from "~/auth/auth-cache.server";
import { resetConfig } from "~/config.server";
import { loader as rootLoader } from "~/root";
import { healAll, setLatency } from "../support/faults";
import { admin, appRequest, createAccount, sessionCookieFor } from "../support/app-env";

/**
 * With every backend slowed down, a signed-in page costs one backend round
 * trip (the user record, the role and the logged-out list are read in
 * parallel), not two or three in sequence.
 */
const firebase = admin();
afterAll(() => firebase.close());
afterEach(async () => {
  await healAll();
  vi.unstubAllEnvs();
  resetConfig();
  authCache.reset();
});

const LATENCY = 300; // per direction: one round trip ≈ 600 ms

async function timeRootLoader(cookie: string) {
  const started = performance.now();
  const response = await rootLoader({ request: appRequest("/", { cookie }), params: {}, context: {} });
  const data = await response.json();
  return { ms: performance.now() - started, data };
}

describe("root loader concurrency", () => {
  it("a signed-in admin page costs one round trip, not two", async () => {
    const account = await createAccount(firebase, { role: "admin" });
    const cookie = await sessionCookieFor(account);
    await timeRootLoader(cookie); // warm connections
    vi.stubEnv("BACKEND_TIMEOUT_MS", "5000");
    resetConfig();
    for (const backend of ["identity", "firestore", "postgres"] as const) await setLatency(backend, LATENCY);

    const { ms, data } = await timeRootLoader(cookie);
    expect(data.isAdmin).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(2 * LATENCY * 0.9); // it did reach the backends
    expect(ms).toBeLessThan(2 * LATENCY * 1.6); // …once, not twice in a row
  });

  it("with the caches warm, a second page costs no round trip", async () => {
    vi.stubEnv("AUTH_CACHE_TTL_SECONDS", "30");
    vi.stubEnv("BACKEND_TIMEOUT_MS", "5000");
    resetConfig();
    authCache.reset();
    const account = await createAccount(firebase, { role: "premium" });
    const cookie = await sessionCookieFor(account);
    await timeRootLoader(cookie);
    for (const backend of ["identity", "firestore", "postgres"] as const) await setLatency(backend, LATENCY);
    const { ms, data } = await timeRootLoader(cookie);
    expect(data.role).toBe("premium");
    expect(ms).toBeLessThan(LATENCY);
  });

  it("pages that miss the cache together share one read of each backend", async () => {
    vi.stubEnv("AUTH_CACHE_TTL_SECONDS", "30");
    resetConfig();
    authCache.reset();
    const account = await createAccount(firebase, { role: "premium" });
    const cookie = await sessionCookieFor(account);
    const { adminAuth } = await import("~/firebase.server");
    const getUser = vi.spyOn(adminAuth(), "getUser");
    try {
      const pages = await Promise.all(Array.from({ length: 20 }, () => timeRootLoader(cookie)));
      expect(pages.map((page) => page.data.role)).toEqual(Array(20).fill("premium"));
      expect(getUser).toHaveBeenCalledTimes(1);
    } finally {
      getUser.mockRestore();
    }
  });
});
