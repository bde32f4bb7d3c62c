import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authCache } from "~/auth/auth-cache.server";
import { getSessionUser, peekSession } from "~/auth/session.server";
import { action as sessionAction } from "~/routes/api.auth.session";
import { admin, APP_ORIGIN, appRequest, freshIdToken, sessionCookieFor } from "../support/app-env";
import type { TestAccount } from "../support/identity";
import { appHandler } from "../support/remix-app";
import { postForm, respond } from "./admin-support";
import { action as adminUsersAction } from "~/routes/admin.users";

/**
 * Why a session names the account's current email (ADR 042): the role was
 * read for the email frozen in the session cookie while "verified" came
 * from the current identity record.
 * An attacker signs up with an address an admin pre-assigned "admin", mints a
 * session, moves the account to an address they own within the same second
 * (so the identity service's one-second revocation keeps the cookie) and
 * verifies it: the old cookie was admin. A cookie whose email claim differs
 * from the account's current email is now signed out, whatever the second.
 */

const firebase = admin();
afterAll(() => firebase.close());

let handle: (request: Request) => Promise<Response>;
let adminCookie: string;

beforeAll(async () => {
  handle = await appHandler();
  const email = `admin-${randomUUID().slice(0, 8)}@example.com`;
  const password = `pw-${randomUUID()}`;
  const user = await firebase.auth.createUser({ email, password, emailVerified: true });
  await firebase.firestore.collection("users").doc(email).set({ stripeRole: "admin" });
  adminCookie = await sessionCookieFor({ uid: user.uid, email, password });
});

function claimsOf(cookie: string): { auth_time: number; email?: string } {
  return JSON.parse(Buffer.from(cookie.split("=")[1].split(".")[1], "base64url").toString());
}

/**
 * Sets the account's "tokens valid since" to `seconds`: the email change
 * happened in the same second the session was minted (the race an
 * attacker's script won in 63 ms), made deterministic.
 */
async function setValidSince(uid: string, seconds: number) {
  const response = await fetch(
    `http://${process.env.TEST_AUTH_EMULATOR_DIRECT}/identitytoolkit.googleapis.com/v1/projects/${process.env.FIREBASE_PROJECT_ID}/accounts:update`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer owner" },
      body: JSON.stringify({ localId: uid, validSince: String(seconds) }),
    },
  );
  if (!response.ok) throw new Error(`Could not set validSince of ${uid}: ${await response.text()}`);
}

/** An admin pre-assigns "admin" to an address nobody has claimed; the attacker signs up with it. */
async function attackerWithPreassignedAdminAddress(): Promise<TestAccount> {
  const target = `future-admin-${randomUUID().slice(0, 8)}@example.com`;
  const assigned = await respond(
    adminUsersAction,
    postForm("/admin/users", { email: target, role: "admin", confirm: "yes" }, { cookie: adminCookie }),
  );
  expect(assigned.status).toBeLessThan(400);
  expect((await firebase.firestore.collection("users").doc(target).get()).get("stripeRole")).toBe("admin");

  const password = `pw-${randomUUID()}`;
  const user = await firebase.auth.createUser({ email: target, password, emailVerified: false });
  return { uid: user.uid, email: target, password };
}

async function moveToVerifiedAddress(account: TestAccount, sameSecondAs: number) {
  const owned = `attacker-${randomUUID().slice(0, 8)}@example.net`;
  await firebase.auth.updateUser(account.uid, { email: owned, emailVerified: true });
  await setValidSince(account.uid, sameSecondAs);
  return owned;
}

/**
 * Another instance's view, or this one's after its cache expired: the
 * current record (new address, verified), with the old address's admin role
 * cached too.
 */
function cacheCurrentRecord(attacker: TestAccount, owned: string, cookie: string) {
  authCache.setIdentity({
    uid: attacker.uid,
    email: owned,
    emailVerified: true,
    disabled: false,
    validSinceMs: claimsOf(cookie).auth_time * 1000,
  });
  authCache.setRole(attacker.email, "admin");
  authCache.setRole(owned, "");
}

describe("a session cookie whose email claim is not the account's current email", () => {
  it("the old cookie does not open /admin/users after the email change and verification (same second)", async () => {
    const attacker = await attackerWithPreassignedAdminAddress();
    const cookie = await sessionCookieFor(attacker);
    expect(claimsOf(cookie).email).toBe(attacker.email);

    // Unverified: not admin ("admin" counts only for a verified email, docs/operations.md).
    expect((await handle(appRequest("/admin/users", { cookie }))).status).toBe(403);

    await moveToVerifiedAddress(attacker, claimsOf(cookie).auth_time);

    const response = await handle(appRequest("/admin/users", { cookie }));
    expect(response.status).not.toBe(200);
    // Signed out: sent to sign in, and the dead cookie cleared.
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Fusers");
    expect(response.headers.get("Set-Cookie")).toMatch(/=;.*Max-Age=0/);
    expect(await response.text()).not.toContain("Admin users");
  });

  it("every page signs the cookie out, from a cached identity too, and the chat's early start sees no session", async () => {
    const attacker = await attackerWithPreassignedAdminAddress();
    const cookie = await sessionCookieFor(attacker);
    // Pages warm the caches with the account as it was (the pre-assigned address, unverified).
    expect((await getSessionUser(appRequest("/dashboard", { cookie }))).status).toBe("signed-in");

    const owned = await moveToVerifiedAddress(attacker, claimsOf(cookie).auth_time);
    cacheCurrentRecord(attacker, owned, cookie);

    const page = await getSessionUser(appRequest("/dashboard", { cookie }));
    expect(page).toMatchObject({ status: "signed-out", clearCookie: true });
    const fresh = await getSessionUser(appRequest("/admin/messages", { cookie }));
    expect(fresh).toMatchObject({ status: "signed-out", clearCookie: true });

    cacheCurrentRecord(attacker, owned, cookie);
    const peek = await peekSession(appRequest("/api/chat", { method: "POST", cookie }));
    expect(peek?.cached ?? null).toBeNull();
  });

  it("an ID token minted before the email change cannot become a session (401)", async () => {
    const attacker = await attackerWithPreassignedAdminAddress();
    const idToken = await freshIdToken(attacker);
    await moveToVerifiedAddress(attacker, Math.floor(Date.now() / 1000) - 60);

    const response = await sessionAction({
      request: appRequest("/api/auth/session", {
        method: "POST",
        headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
        body: JSON.stringify({ idToken }),
      }),
      params: {},
      context: {},
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("Set-Cookie")).toBeNull();
  });

  it("the role is the one of the account's current, verified email", async () => {
    const attacker = await attackerWithPreassignedAdminAddress();
    const owned = await moveToVerifiedAddress(attacker, Math.floor(Date.now() / 1000) - 60);
    await firebase.firestore.collection("users").doc(owned).set({ stripeRole: "premium" });
    // A new sign-in with the current address: its role, never the old address's admin.
    const cookie = await sessionCookieFor({ ...attacker, email: owned });
    const state = await getSessionUser(appRequest("/admin/messages", { cookie }));
    expect(state).toMatchObject({ status: "signed-in", role: "premium", isAdmin: false });
    expect(state.status === "signed-in" && state.user.email).toBe(owned);
    expect((await handle(appRequest("/admin/users", { cookie }))).status).toBe(403);
  });
});
