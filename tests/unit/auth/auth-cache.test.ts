import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { authCache } from "~/auth/auth-cache.server";
import { resetConfig } from "~/config.server";

const identity = (uid: string) => ({
  uid,
  email: `${uid}@example.com`,
  emailVerified: true,
  disabled: false,
  validSinceMs: 0,
});

describe("auth caches (TTL ≤ 30 s, evicted on logout and role change)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
    // A fake clock starts at 0, which lru-cache reads as "no start time".
    vi.advanceTimersByTime(1_000);
    vi.stubEnv("AUTH_CACHE_TTL_SECONDS", "30");
    resetConfig();
    authCache.reset();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    resetConfig();
    authCache.reset();
  });

  it("holds identity, role and revocation state until the TTL passes", () => {
    authCache.setIdentity(identity("u1"));
    authCache.setRole("u1@example.com", "premium");
    authCache.setRevoked("hash", false);
    vi.advanceTimersByTime(29_000);
    expect(authCache.getIdentity("u1")?.uid).toBe("u1");
    expect(authCache.getRole("u1@example.com")).toBe("premium");
    expect(authCache.getRevoked("hash")).toBe(false);
    vi.advanceTimersByTime(1_500);
    expect(authCache.getIdentity("u1")).toBeUndefined();
    expect(authCache.getRole("u1@example.com")).toBeUndefined();
    expect(authCache.getRevoked("hash")).toBeUndefined();
  });

  it("logout evicts the user's identity and role", () => {
    authCache.setIdentity(identity("u2"));
    authCache.setRole("u2@example.com", "admin");
    authCache.forgetUser("u2", "u2@example.com");
    expect(authCache.getIdentity("u2")).toBeUndefined();
    expect(authCache.getRole("u2@example.com")).toBeUndefined();
  });

  it("a role change evicts the role only", () => {
    authCache.setIdentity(identity("u3"));
    authCache.setRole("u3@example.com", "admin");
    authCache.forgetRole("u3@example.com");
    expect(authCache.getRole("u3@example.com")).toBeUndefined();
    expect(authCache.getIdentity("u3")?.uid).toBe("u3");
  });

  it("an empty role is cached as a value, not as a miss", () => {
    authCache.setRole("u4@example.com", "");
    expect(authCache.getRole("u4@example.com")).toBe("");
  });

  it("a TTL of 0 disables caching", () => {
    vi.stubEnv("AUTH_CACHE_TTL_SECONDS", "0");
    resetConfig();
    authCache.reset();
    authCache.setRole("u5@example.com", "admin");
    expect(authCache.getRole("u5@example.com")).toBeUndefined();
  });

  it("the TTL can never exceed 30 s", async () => {
    const { parseConfig } = await import("~/config.server");
    expect(() => parseConfig({ AUTH_CACHE_TTL_SECONDS: "31" } as unknown as NodeJS.ProcessEnv)).toThrow();
  });
});
