import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSessionUser } from "~/auth/session.server";
import { readRole, writeRole } from "~/auth/roles.server";
import { action as deleteAction } from "~/routes/api.account.delete";
import { action as sessionAction } from "~/routes/api.auth.session";
import { action as usersAction, loader as usersLoader } from "~/routes/admin.users";
import { captureLogs } from "../support/log-capture";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { idTokenFor, type TestAccount } from "../support/identity";
import { get, postForm, respond } from "./admin-support";
import { dataOf, firstMessage, postChat, readChunks } from "./chat-support";

/**
 * Addresses that cannot key their users/{email} role record (docs/decisions/075):
 * "/" is a path separator to Firestore, so `a/b@example.com` names no
 * document and `x/users/y@example.com` one in another collection. The identity
 * service accepts both. They are refused at sign-in; accounts that exist
 * already have no role, are listed, and can be disabled and deleted, and
 * delete themselves — and no request of theirs is a Firestore fault.
 */
const firebase = admin();
let model: ModelServer;
let restoreEnv: () => void;
let me: TestAccount;
let myCookie: string;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  restoreEnv = setAppEnv({ LLM_BASE_URL: model.url, LLM_MODELS: "test-model" });
  me = await createAccount(firebase, { role: "admin", prefix: "keyadmin" });
  myCookie = await sessionCookieFor(me);
});

afterAll(async () => {
  restoreEnv();
  await model.close();
  await firebase.close();
});

const authHost = () => process.env.TEST_AUTH_EMULATOR_DIRECT!;

/** An address of each shape Firestore cannot take as users/{email}, unique per test. */
function slashed(shape: "odd" | "even" = "odd") {
  const tag = randomUUID().slice(0, 8);
  return shape === "odd" ? `a/${tag}@example.com` : `x/users/${tag}@example.com`;
}

/** Signs up as the client SDK does (the identity service takes a "/" in the local part). */
async function signUp(email: string): Promise<TestAccount & { idToken: string }> {
  const password = `pw-${randomUUID()}`;
  const response = await fetch(
    `http://${authHost()}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-api-key`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password, returnSecureToken: true }),
    },
  );
  const body = (await response.json()) as { idToken?: string; localId?: string; error?: { message: string } };
  if (!body.idToken || !body.localId) throw new Error(`Sign-up failed: ${body.error?.message}`);
  await firebase.auth.updateUser(body.localId, { emailVerified: true });
  return { uid: body.localId, email, password, idToken: await signInToken({ email, password }) };
}

/** A fresh ID token for the account, from the identity service directly. */
const signInToken = (account: { email: string; password: string }) => idTokenFor(authHost(), account);

/** A session made straight from the identity service, as one made before sign-in refused such addresses. */
async function existingSession(account: { email: string; password: string }): Promise<string> {
  const cookie = await firebase.auth.createSessionCookie(await signInToken(account), { expiresIn: 60 * 60 * 1000 });
  return `__session=${cookie}`;
}

function postSession(idToken: string, cookie?: string) {
  return sessionAction({
    request: appRequest("/api/auth/session", {
      method: "POST",
      cookie,
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
      body: JSON.stringify({ idToken }),
    }),
    params: {},
    context: {},
  });
}

interface ListedUser {
  uid: string;
  email: string;
  role: string;
  canHoldRole: boolean;
  roleNote: string | null;
  disabled: boolean;
}

async function listed(email: string, cookie = myCookie): Promise<{ status: number; user?: ListedUser }> {
  const response = await respond(usersLoader, get(`/admin/users?q=${encodeURIComponent(email)}`, cookie));
  if (response.status !== 200) return { status: response.status };
  const data = (await response.json()) as { listing: { users: ListedUser[] } };
  return { status: 200, user: data.listing.users.find((user) => user.email === email) };
}

function faults(logs: ReturnType<typeof captureLogs>) {
  return logs.entries().filter((entry) => entry.level >= 40);
}

describe("logging in with an address that cannot key users/{email}", () => {
  it("is refused with a clear code and message, and no session is made", async () => {
    for (const shape of ["odd", "even"] as const) {
      const account = await signUp(slashed(shape));
      const response = await postSession(account.idToken);
      expect(response.status).toBe(403);
      expect(response.headers.get("Set-Cookie")).toBeNull();
      expect(await response.json()).toEqual({
        code: "auth/unusable-email-address",
        error: expect.stringMatching(/^This email address can't be used here: an address with “\/” in it/),
      });
    }
  });

  it("an ordinary address still signs in", async () => {
    const account = await createAccount(firebase);
    const response = await postSession(await signInToken(account));
    expect(response.status).toBe(204);
  });

  it("an account already logged in on this browser may confirm its identity again (to delete itself)", async () => {
    const account = await signUp(slashed());
    const cookie = await existingSession(account);
    expect((await postSession(await signInToken(account), cookie)).status).toBe(204);
    // Someone else's session does not let it in.
    expect((await postSession(await signInToken(account), myCookie)).status).toBe(403);
  });
});

describe("an account that exists already with such an address", () => {
  it("has no role, reads no users/{email}, and chats without a Firestore fault", async () => {
    for (const shape of ["odd", "even"] as const) {
      const email = slashed(shape);
      const account = await signUp(email);
      // A role record where the path would lead: `x/users/y@…` is users/x/users/y@… — never read as its role.
      if (shape === "even") await firebase.firestore.doc(`users/${email}`).set({ stripeRole: "admin" });
      const cookie = await existingSession(account);
      const logs = captureLogs();
      try {
        const state = await getSessionUser(appRequest("/", { cookie }), { fresh: true });
        expect(state).toMatchObject({ status: "signed-in", role: "", isAdmin: false, degraded: false });
        expect(await readRole(email)).toBe("");
        const chunks = await readChunks(await postChat(firstMessage("hello"), { cookie }));
        expect(dataOf(chunks, "saved")).toBeDefined();
        expect(faults(logs)).toEqual([]);
      } finally {
        logs.restore();
      }
    }
  });

  it("is listed on /admin/users with a note, the page answering 200, without a logged fault", async () => {
    const email = slashed();
    await signUp(email);
    const logs = captureLogs();
    try {
      const { status, user } = await listed(email);
      expect(status).toBe(200);
      expect(user).toMatchObject({ email, role: "", canHoldRole: false });
      expect(user?.roleNote).toMatch(/^This address can't hold a role \(it contains “\/”/);
      // The whole first page, which holds it among the others, answers too.
      expect((await respond(usersLoader, get("/admin/users", myCookie))).status).toBe(200);
      expect(faults(logs)).toEqual([]);
    } finally {
      logs.restore();
    }
  });

  it("setting its role is refused with a clear 400, and nothing is written anywhere", async () => {
    const email = slashed("even");
    await signUp(email);
    const response = await respond(
      usersAction,
      postForm("/admin/users", { email, role: "premium" }, { cookie: myCookie }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).fieldErrors.email).toMatch(/can't hold a role: it contains “\/”/);
    expect((await firebase.firestore.doc(`users/${email}`).get()).exists).toBe(false);
    await expect(writeRole(email, "premium")).rejects.toThrow(/can't hold a role/);
  });

  it("can be disabled and then deleted by an admin, each recorded", async () => {
    const email = slashed();
    const account = await signUp(email);
    const cookie = await existingSession(account);

    const disabled = await respond(
      usersAction,
      postForm("/admin/users", { intent: "disable", uid: account.uid }, { cookie: myCookie }),
    );
    expect(disabled.status).toBe(200);
    expect((await listed(email)).user).toMatchObject({ disabled: true });
    expect((await getSessionUser(appRequest("/", { cookie }), { fresh: true })).status).toBe("signed-out");

    // Deleting asks once more; only the confirmed post deletes.
    const asked = await respond(
      usersAction,
      postForm("/admin/users", { intent: "delete", uid: account.uid }, { cookie: myCookie }),
    );
    expect(await asked.json()).toEqual({ email: null, confirmDelete: { uid: account.uid } });
    expect((await listed(email)).user).toBeDefined();
    const deleted = await respond(
      usersAction,
      postForm("/admin/users", { intent: "delete", uid: account.uid, confirm: "yes" }, { cookie: myCookie }),
    );
    expect(deleted.status).toBe(200);
    expect((await deleted.json()).notice).toBe(`${email} is deleted, with everything the product kept of theirs.`);
    expect(await listed(email)).toEqual({ status: 200, user: undefined });
    await expect(firebase.auth.getUser(account.uid)).rejects.toMatchObject({ code: "auth/user-not-found" });

    const page = (await (await respond(usersLoader, get("/admin/users", myCookie))).json()) as {
      accountActions: Array<{ targetEmail: string; action: string }>;
    };
    expect(page.accountActions.filter((entry) => entry.targetEmail === email).map((entry) => entry.action)).toEqual([
      "delete",
      "disable",
    ]);
  });

  it("can delete itself from the dashboard, touching no other document", async () => {
    for (const shape of ["odd", "even"] as const) {
      const email = slashed(shape);
      const account = await signUp(email);
      // Where users/{email} would lead for `x/users/y@…`: another collection's document, which must stay.
      if (shape === "even") await firebase.firestore.doc(`users/${email}`).set({ stripeRole: "premium" });
      const cookie = await existingSession(account);
      const logs = captureLogs();
      try {
        const response = await respond(deleteAction, postForm("/api/account/delete", { confirm: email }, { cookie }));
        expect(response.status).toBe(303);
        expect(response.headers.get("Location")).toBe("/dashboard/deleted");
        await expect(firebase.auth.getUser(account.uid)).rejects.toMatchObject({ code: "auth/user-not-found" });
        if (shape === "even") expect((await firebase.firestore.doc(`users/${email}`).get()).exists).toBe(true);
        expect(faults(logs)).toEqual([]);
      } finally {
        logs.restore();
      }
    }
  });
});

describe("admin deletion of an ordinary account", () => {
  it("refuses the admin's own account, deleting nothing", async () => {
    const own = await respond(
      usersAction,
      postForm("/admin/users", { intent: "delete", uid: me.uid, confirm: "yes" }, { cookie: myCookie }),
    );
    expect(own.status).toBe(409);
    expect((await own.json()).fieldErrors.form).toMatch(/use “Delete account” on your dashboard/);
    await expect(firebase.auth.getUser(me.uid)).resolves.toBeDefined();
  });
});
