import { describe, expect, it } from "vitest";
import { forwardedClientAddress } from "~/auth/request.server";
import { parseConfig } from "~/config.server";

/**
 * TRUST_PROXY (docs/configuration.md): behind a proxy that appends to
 * X-Forwarded-For, the leftmost entry is whatever the client sent, so taking
 * it let one client look like any number of addresses and walk past every
 * per-address limit. The client is the entry the outermost trusted proxy
 * added: `hops` from the right.
 */
describe("forwardedClientAddress", () => {
  it("one proxy: the rightmost entry, whatever the client put before it", () => {
    expect(forwardedClientAddress("203.0.113.7", 1)).toBe("203.0.113.7");
    expect(forwardedClientAddress("1.2.3.4, 203.0.113.7", 1)).toBe("203.0.113.7");
    expect(forwardedClientAddress("spoofed-1, spoofed-2,203.0.113.7", 1)).toBe("203.0.113.7");
  });

  it("a spoofed first hop never changes the address (the bypass it once allowed)", () => {
    const seen = new Set(Array.from({ length: 20 }, (_, i) => forwardedClientAddress(`10.0.0.${i}, 198.51.100.1`, 1)));
    expect([...seen]).toEqual(["198.51.100.1"]);
  });

  it("two proxies: the entry the outer proxy added (second from the right)", () => {
    expect(forwardedClientAddress("spoofed, 203.0.113.7, 10.0.0.2", 2)).toBe("203.0.113.7");
  });

  it("fewer entries than proxies, an empty entry or no header: no address (not a forgeable one)", () => {
    expect(forwardedClientAddress("203.0.113.7", 2)).toBeUndefined();
    expect(forwardedClientAddress("203.0.113.7, ", 1)).toBeUndefined();
    expect(forwardedClientAddress(null, 1)).toBeUndefined();
    expect(forwardedClientAddress("203.0.113.7", 0)).toBeUndefined();
  });
});

describe("TRUST_PROXY", () => {
  const env = (vars: Record<string, string>) => ({ NODE_ENV: "test", ...vars }) as NodeJS.ProcessEnv;

  it.each([
    ["", 0],
    ["0", 0],
    ["false", 0],
    ["1", 1],
    ["true", 1],
    ["TRUE", 1],
    ["2", 2],
  ])("%j → %d trusted proxies", (value, hops) => {
    const config = parseConfig(env({ TRUST_PROXY: value }));
    expect(config.trustedProxyHops).toBe(hops);
    expect(config.trustProxy).toBe(hops > 0);
  });

  it.each(["yes", "-1", "11", "1.5"])("%j is refused with a clear message", (value) => {
    expect(() => parseConfig(env({ TRUST_PROXY: value }))).toThrow(/TRUST_PROXY/);
  });
});
