import type { ActionFunctionArgs } from "@remix-run/node";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { loader as rootLoader } from "~/root";
import { action as deleteAction } from "~/routes/api.account.delete";
import { action as exportAction, loader as exportLoader } from "~/routes/api.account.export";
import { action as signOutEverywhere } from "~/routes/api.account.sign-out-everywhere";
import { setCustomInstructions } from "~/data/preferences.server";
import { createConversation } from "~/data/conversations.server";
import { getDb } from "~/db/client.server";
import { conversations, userPreferences } from "~/db/schema";
import { backdateAccount, pastSignInSecond } from "../support/identity";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";

/** The account's API routes: export, sign out of all devices, delete (with its recent sign-in). */
const firebase = admin();
afterAll(() => firebase.close());

function post(
  path: string,
  {
    cookie,
    form,
    origin = APP_ORIGIN,
  }: { cookie?: string; form?: Record<string, string>; origin?: string | null } = {},
) {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (origin) headers.Origin = origin;
  return appRequest(path, { method: "POST", cookie, headers, body: new URLSearchParams(form ?? {}).toString() });
}

async function call(action: (args: ActionFunctionArgs) => Promise<Response>, request: Request) {
  try {
    return await action({ request, params: {}, context: {} });
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

async function signedInUser(cookie?: string) {
  const response = await rootLoader({ request: appRequest("/", { cookie }), params: {}, context: {} });
  return (await response.json()).user as { uid: string } | null;
}

/** A copy of the session cookie whose sign-in happened `ageSeconds` ago (the emulator's cookies are unsigned). */
function withSignInAge(cookie: string, ageSeconds: number): string {
  const [header, payload] = cookie.slice("__session=".length).split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
  claims.auth_time = Math.floor(Date.now() / 1000) - ageSeconds;
  return `__session=${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.`;
}

describe("POST /api/account/export", () => {
  it("answers a JSON download of the user's own data", async () => {
    const account = await createAccount(firebase, { role: "premium", displayName: "Ex Porter" });
    const other = await createAccount(firebase);
    const db = await getDb();
    await createConversation(db, { uid: account.uid, title: "Mine" });
    await createConversation(db, { uid: other.uid, title: "Not mine" });
    await setCustomInstructions(db, account.uid, "Be terse.");

    const response = await call(exportAction, post("/api/account/export", { cookie: await sessionCookieFor(account) }));
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(response.headers.get("Content-Disposition")).toMatch(
      /^attachment; filename="nuvara-data-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const data = await response.json();
    expect(data.account).toMatchObject({
      uid: account.uid,
      email: account.email,
      displayName: "Ex Porter",
      plan: "Premium",
    });
    expect(data.conversations.map((conversation: { title: string }) => conversation.title)).toEqual(["Mine"]);
    expect(data.preferences.customInstructions).toBe("Be terse.");
  });

  it("is refused cross-origin, sends a signed-out visitor to log in, and is POST only", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    expect(
      (await call(exportAction, post("/api/account/export", { cookie, origin: "https://evil.example" }))).status,
    ).toBe(403);
    expect((await call(exportAction, post("/api/account/export", { cookie, origin: null }))).status).toBe(403);
    const signedOut = await call(exportAction, post("/api/account/export"));
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("Location")).toBe("/login?redirectTo=%2Fdashboard");
    expect((await call(exportLoader, appRequest("/api/account/export"))).status).toBe(405);
  });
});

describe("POST /api/account/sign-out-everywhere", () => {
  it("ends this session and every other session of the user, and no one else's", async () => {
    const account = await createAccount(firebase);
    const bystander = await createAccount(firebase);
    const here = await sessionCookieFor(account);
    const elsewhere = await sessionCookieFor(account);
    const someoneElse = await sessionCookieFor(bystander);
    expect(await signedInUser(elsewhere)).toMatchObject({ uid: account.uid });
    await pastSignInSecond(here, elsewhere);

    const response = await call(signOutEverywhere, post("/api/account/sign-out-everywhere", { cookie: here }));
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/");
    expect(response.headers.get("Set-Cookie")).toMatch(/^__session=;.*Max-Age=0/);

    expect(await signedInUser(here)).toBeNull();
    expect(await signedInUser(elsewhere)).toBeNull();
    expect(await signedInUser(someoneElse)).toMatchObject({ uid: bystander.uid });
    // A new sign-in works as before.
    expect(await signedInUser(await sessionCookieFor(account))).toMatchObject({ uid: account.uid });
  });

  it("is refused cross-origin", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    const response = await call(
      signOutEverywhere,
      post("/api/account/sign-out-everywhere", { cookie, origin: "https://evil.example" }),
    );
    expect(response.status).toBe(403);
    expect(await signedInUser(cookie)).toMatchObject({ uid: account.uid });
  });
});

describe("POST /api/account/delete", () => {
  it("needs the email address typed exactly", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    for (const [confirm, message] of [
      ["", /Type your email address/],
      ["someone@example.com", /not your email address/],
    ] as const) {
      const response = await call(deleteAction, post("/api/account/delete", { cookie, form: { confirm } }));
      expect(response.status).toBe(400);
      expect((await response.json()).fieldErrors.confirm).toMatch(message);
    }
    expect((await firebase.auth.getUser(account.uid)).uid).toBe(account.uid);
  });

  it("asks for a new login when the session's login is over five minutes old, deleting nothing", async () => {
    const account = await createAccount(firebase, { role: "premium" });
    await backdateAccount(process.env.TEST_AUTH_EMULATOR_DIRECT!, process.env.FIREBASE_PROJECT_ID!, account.uid, 3600);
    const stale = withSignInAge(await sessionCookieFor(account), 6 * 60);
    expect(await signedInUser(stale)).toMatchObject({ uid: account.uid });

    const response = await call(
      deleteAction,
      post("/api/account/delete", { cookie: stale, form: { confirm: account.email } }),
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      reauth: true,
      error: "For your security, please log in again to continue.",
    });
    expect((await firebase.auth.getUser(account.uid)).disabled).toBe(false);
    expect((await firebase.firestore.collection("users").doc(account.email).get()).exists).toBe(true);
  });

  it("with a recent login and the email typed (any case), deletes the account and clears the cookie", async () => {
    const account = await createAccount(firebase, { role: "premium" });
    const cookie = await sessionCookieFor(account);
    const db = await getDb();
    await createConversation(db, { uid: account.uid, title: "Going away" });
    await setCustomInstructions(db, account.uid, "Bye.");

    const response = await call(
      deleteAction,
      post("/api/account/delete", { cookie, form: { confirm: account.email.toUpperCase() } }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/dashboard/deleted");
    expect(response.headers.get("Set-Cookie")).toMatch(/^__session=;.*Max-Age=0/);
    await expect(firebase.auth.getUser(account.uid)).rejects.toMatchObject({ code: "auth/user-not-found" });
    expect((await firebase.firestore.collection("users").doc(account.email).get()).exists).toBe(false);
    expect(await db.select().from(conversations).where(eq(conversations.uid, account.uid))).toEqual([]);
    expect(await db.select().from(userPreferences).where(eq(userPreferences.uid, account.uid))).toEqual([]);
    // The cookie is refused from now on, even if the browser kept it.
    expect(await signedInUser(cookie)).toBeNull();
  });

  it("is refused cross-origin and to a signed-out visitor", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    const cross = await call(
      deleteAction,
      post("/api/account/delete", { cookie, form: { confirm: account.email }, origin: "https://evil.example" }),
    );
    expect(cross.status).toBe(403);
    const signedOut = await call(deleteAction, post("/api/account/delete", { form: { confirm: account.email } }));
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("Location")).toBe("/login?redirectTo=%2Fdashboard");
    expect((await firebase.auth.getUser(account.uid)).uid).toBe(account.uid);
  });
});
