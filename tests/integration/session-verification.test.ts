import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { requireAdmin, requireUser } from "~/auth/session.server";
import { loader as rootLoader } from "~/root";
import { loader as adminLoader } from "~/routes/admin.messages";
import { action as logoutAction, loader as logoutLoader } from "~/routes/api.auth.logout";
import { loader as healthLoader } from "~/routes/healthz";
import { healAll, setFault } from "../support/faults";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { pastSignInSecond } from "../support/identity";

const firebase = admin();
afterAll(() => firebase.close());
afterEach(healAll);

async function root(cookie?: string) {
  const response = await rootLoader({ request: appRequest("/", { cookie }), params: {}, context: {} });
  return { response, data: await response.json(), setCookie: response.headers.get("Set-Cookie") };
}

async function thrown(promise: Promise<unknown>): Promise<Response> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Response) return error;
    throw error;
  }
  throw new Error("expected a thrown Response");
}

describe("root loader: session and role", () => {
  it("logged out without a cookie: no user, role empty, nothing cleared", async () => {
    const { data, setCookie } = await root();
    expect(data).toMatchObject({ user: null, role: "", isAdmin: false });
    expect(setCookie).toBeNull();
  });

  it("logged in: the user's fields and the role from users/{email}.stripeRole", async () => {
    const account = await createAccount(firebase, { role: "premium", displayName: "Pat Premium" });
    const { data } = await root(await sessionCookieFor(account));
    expect(data.user).toMatchObject({
      uid: account.uid,
      email: account.email,
      displayName: "Pat Premium",
      emailVerified: true,
    });
    expect(data.role).toBe("premium");
    expect(data.isAdmin).toBe(false);
  });

  it("a missing document or a non-string stripeRole gives an empty role", async () => {
    const none = await createAccount(firebase);
    expect((await root(await sessionCookieFor(none))).data.role).toBe("");
    const odd = await createAccount(firebase);
    await firebase.firestore.collection("users").doc(odd.email).set({ stripeRole: 42 });
    expect((await root(await sessionCookieFor(odd))).data.role).toBe("");
  });

  it("admin counts only for a verified email address", async () => {
    const verified = await createAccount(firebase, { role: "admin" });
    expect((await root(await sessionCookieFor(verified))).data.isAdmin).toBe(true);
    const unverified = await createAccount(firebase, { role: "admin", verified: false });
    const { data } = await root(await sessionCookieFor(unverified));
    expect(data.role).toBe("admin");
    expect(data.isAdmin).toBe(false);
  });

  it("a malformed or expired cookie signs the visitor out and clears the cookie", async () => {
    const malformed = await root("__session=garbage.not.a-jwt");
    expect(malformed.data.user).toBeNull();
    expect(malformed.setCookie).toMatch(/^__session=;.*Max-Age=0/);

    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    const [header, payload] = cookie.slice("__session=".length).split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    claims.exp = Math.floor(Date.now() / 1000) - 60;
    const expired = `__session=${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.`;
    const result = await root(expired);
    expect(result.data.user).toBeNull();
    expect(result.setCookie).toMatch(/^__session=;/);
  });

  it("a disabled user is logged out and the cookie cleared", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    expect((await root(cookie)).data.user).not.toBeNull();
    await firebase.auth.updateUser(account.uid, { disabled: true });
    const { data, setCookie } = await root(cookie);
    expect(data.user).toBeNull();
    expect(setCookie).toMatch(/^__session=;/);
  });

  it("revoked refresh tokens sign the session out", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    await pastSignInSecond(cookie);
    await firebase.auth.revokeRefreshTokens(account.uid);
    const { data, setCookie } = await root(cookie);
    expect(data.user).toBeNull();
    expect(setCookie).toMatch(/^__session=;/);
  });
});

describe("logout", () => {
  it("POST clears the cookie, 303s to /, and the old cookie is refused afterwards", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    const response = await logoutAction({
      request: appRequest("/api/auth/logout", { method: "POST", cookie, headers: { Origin: APP_ORIGIN } }),
      params: {},
      context: {},
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/");
    expect(response.headers.get("Set-Cookie")).toMatch(/^__session=;.*Max-Age=0/);
    // Presented again (a copy kept by an attacker), within the same second: refused.
    const after = await root(cookie);
    expect(after.data.user).toBeNull();
    expect(after.setCookie).toMatch(/^__session=;/);
  });

  it("GET logs out only for same-origin or typed navigations that are not prefetches", async () => {
    const account = await createAccount(firebase);
    const get = async (headers: Record<string, string>, cookie: string) =>
      logoutLoader({
        request: appRequest("/api/auth/logout?redirectTo=%2Ftools", { cookie, headers }),
        params: {},
        context: {},
      });

    const cookie = await sessionCookieFor(account);
    const refused: Array<Record<string, string>> = [
      { "Sec-Fetch-Site": "cross-site" },
      {},
      { "Sec-Fetch-Site": "same-origin", "Sec-Purpose": "prefetch" },
    ];
    for (const headers of refused) {
      const response = await get(headers, cookie);
      expect(response.status).toBe(303);
      expect(response.headers.get("Location")).toBe("/");
      expect(response.headers.get("Set-Cookie")).toBeNull();
      expect((await root(cookie)).data.user).not.toBeNull();
    }

    const typed = await get({ "Sec-Fetch-Site": "none" }, cookie);
    expect(typed.headers.get("Location")).toBe("/tools");
    expect(typed.headers.get("Set-Cookie")).toMatch(/^__session=;/);
    expect((await root(cookie)).data.user).toBeNull();
  });
});

describe("guards", () => {
  it("requireUser redirects a signed-out visitor to /login with the path URL-encoded", async () => {
    const response = await thrown(requireUser(appRequest("/dashboard?tab=usage&x=1")));
    expect([302, 303]).toContain(response.status);
    expect(response.headers.get("Location")).toBe(
      `/login?redirectTo=${encodeURIComponent("/dashboard?tab=usage&x=1")}`,
    );
  });

  it("/admin/messages: anonymous → login, user → 403, admin → 200", async () => {
    const anonymous = await thrown(adminLoader({ request: appRequest("/admin/messages"), params: {}, context: {} }));
    expect(anonymous.headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Fmessages");

    const user = await createAccount(firebase, { role: "premium" });
    const forbidden = await thrown(
      adminLoader({
        request: appRequest("/admin/messages", { cookie: await sessionCookieFor(user) }),
        params: {},
        context: {},
      }),
    );
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ error: "This page is for admins only." });

    const adminAccount = await createAccount(firebase, { role: "admin" });
    const ok = await adminLoader({
      request: appRequest("/admin/messages", { cookie: await sessionCookieFor(adminAccount) }),
      params: {},
      context: {},
    });
    expect(ok.status).toBe(200);
  });

  it("/admin reads the role fresh: a removed admin role is refused at once", async () => {
    const account = await createAccount(firebase, { role: "admin" });
    const cookie = await sessionCookieFor(account);
    await requireAdmin(appRequest("/admin/messages", { cookie }));
    await firebase.firestore.collection("users").doc(account.email).set({ stripeRole: "" });
    const refused = await thrown(requireAdmin(appRequest("/admin/messages", { cookie })));
    expect(refused.status).toBe(403);
  });
});

describe("faults: a backend stopped or stalled", () => {
  let adminCookie: string;
  beforeAll(async () => {
    adminCookie = await sessionCookieFor(await createAccount(firebase, { role: "admin" }));
  });

  for (const backend of ["firestore", "identity", "postgres"] as const) {
    for (const mode of ["refuse", "stall"] as const) {
      it(`${backend} ${mode === "refuse" ? "stopped" : "stalled"}: the page renders logged in with role "", the cookie is kept, /admin answers 503`, async () => {
        await setFault(backend, mode);
        const started = Date.now();
        const { data, setCookie } = await root(adminCookie);
        expect(Date.now() - started).toBeLessThan(4_000);
        expect(data.user).not.toBeNull();
        expect(data.role).toBe("");
        expect(data.isAdmin).toBe(false);
        expect(data.degraded).toBe(true);
        expect(setCookie).toBeNull();

        const unavailable = await thrown(requireAdmin(appRequest("/admin/messages", { cookie: adminCookie })));
        expect(unavailable.status).toBe(503);

        const health = await healthLoader({ request: appRequest("/healthz"), params: {}, context: {} });
        expect(health.status).toBe(503);
        expect((await health.json()).stores[backend]).toBe("unreachable");
      });
    }
  }

  it("after recovery the admin is an admin again, never having been logged out", async () => {
    await healAll();
    // gRPC reconnects with a short backoff after a fault.
    await vi.waitFor(async () => expect((await root(adminCookie)).data.isAdmin).toBe(true), {
      timeout: 5_000,
      interval: 250,
    });
    const health = await healthLoader({ request: appRequest("/healthz"), params: {}, context: {} });
    expect(health.status).toBe(200);
  });
});
