import { beforeEach, describe, expect, it, vi } from "vitest";

/**
 * Cookie tossing: the session cookie is `__Host-session` outside local
 * mode and `__session` in it; a request with two session cookies (twice one
 * name, or both names) has no session, whichever came first.
 */

let mode: "local" | "real" = "local";
vi.mock("~/config.server", () => ({ getConfig: () => ({ mode, sessionDays: 5 }) }));

const { clearSessionCookie, readSessionCookie, serializeSessionCookie, sessionCookieName, sessionCookieOf } =
  await import("~/auth/cookie.server");

const withCookie = (cookie: string) => new Request("http://app.test/", { headers: { Cookie: cookie } });

beforeEach(() => {
  mode = "local";
});

describe("the cookie's name and attributes per mode", () => {
  it("local mode: __session, not Secure (plain http://localhost)", () => {
    expect(sessionCookieName()).toBe("__session");
    const cookie = serializeSessionCookie("v1");
    expect(cookie).toBe("__session=v1; Path=/; HttpOnly; SameSite=Lax; Max-Age=432000");
    expect(clearSessionCookie()).toMatch(/^__session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0; Expires=/);
  });

  it("real mode: __Host-session with Secure and Path=/ and no Domain (what the prefix requires)", () => {
    mode = "real";
    expect(sessionCookieName()).toBe("__Host-session");
    const cookie = serializeSessionCookie("v1");
    expect(cookie).toBe("__Host-session=v1; Path=/; HttpOnly; SameSite=Lax; Max-Age=432000; Secure");
    expect(cookie).not.toMatch(/Domain/i);
    expect(clearSessionCookie()).toMatch(/^__Host-session=; .*Max-Age=0; Secure/);
    expect(clearSessionCookie("__session")).toMatch(/^__session=; .*Max-Age=0; Secure/);
  });
});

describe("reading the session cookie from a request", () => {
  it("one cookie of this mode's name → its value, among other cookies", () => {
    expect(sessionCookieOf(withCookie("theme=dark; __session=abc.def.ghi; x=1"))).toEqual({
      status: "one",
      value: "abc.def.ghi",
    });
    mode = "real";
    expect(readSessionCookie(withCookie("theme=dark; __Host-session=abc.def.ghi"))).toBe("abc.def.ghi");
  });

  it("none, or an empty one → no session", () => {
    expect(sessionCookieOf(new Request("http://app.test/"))).toEqual({ status: "none" });
    expect(sessionCookieOf(withCookie("__session="))).toEqual({ status: "none" });
    expect(sessionCookieOf(withCookie("x__session=a; __sessionx=b; session=c"))).toEqual({ status: "none" });
  });

  it("two of one name, in either order, valid or not → refused (the first no longer wins)", () => {
    for (const header of [
      "__session=victim; __session=attacker",
      "__session=garbage; __session=valid",
      "__session=a;__session=a",
    ]) {
      expect(sessionCookieOf(withCookie(header)), header).toEqual({ status: "refused" });
      expect(readSessionCookie(withCookie(header)), header).toBeUndefined();
    }
    mode = "real";
    expect(sessionCookieOf(withCookie("__Host-session=a; __Host-session=b"))).toEqual({ status: "refused" });
  });

  it("both names → refused, in either mode", () => {
    for (const m of ["local", "real"] as const) {
      mode = m;
      expect(sessionCookieOf(withCookie("__Host-session=a; __session=b")), m).toEqual({ status: "refused" });
      expect(sessionCookieOf(withCookie("__session=b; __Host-session=a")), m).toEqual({ status: "refused" });
    }
  });

  it("real mode: a lone __session (planted, or left from before) → refused, so it gets cleared", () => {
    mode = "real";
    expect(sessionCookieOf(withCookie("__session=old"))).toEqual({ status: "refused" });
  });

  it("local mode: a lone __Host-session is not ours and is ignored", () => {
    expect(sessionCookieOf(withCookie("__Host-session=x"))).toEqual({ status: "none" });
  });
});
