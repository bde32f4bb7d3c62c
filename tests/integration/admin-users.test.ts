import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRole } from "~/auth/roles.server";
import { getDb } from "~/db/client.server";
import { usageDaily } from "~/db/schema";
import { loader as rootLoader } from "~/root";
import { action as usersAction, loader as usersLoader } from "~/routes/admin.users";
import { admin, createAccount, freshIdToken, sessionCookieFor } from "../support/app-env";
import { pastSignInSecond, type TestAccount } from "../support/identity";
import { get, postForm, respond } from "./admin-support";

const firebase = admin();
afterAll(() => firebase.close());

let me: TestAccount;
let myCookie: string;
beforeAll(async () => {
  me = await createAccount(firebase, { role: "admin", displayName: "Ada Admin" });
  myCookie = await sessionCookieFor(me);
});

interface UsersData {
  me: string;
  listing: {
    users: Array<{
      uid: string;
      email: string;
      name: string | null;
      role: string;
      disabled: boolean;
      createdAt: string | null;
      lastSignInAt: string | null;
      usage: { messages: number; tokens: number };
    }>;
    nextPageToken: string | null;
    usageUnavailable: boolean;
  };
  changes: Array<{ actorEmail: string; targetEmail: string; oldRole: string; newRole: string; createdAt: string }>;
  accountActions: Array<{ actorEmail: string; targetEmail: string; action: string; createdAt: string }>;
  allowances: { none: number | null; premium: number | null; admin: number | null; other: number | null };
}

async function usersPage(search = "", cookie = myCookie): Promise<UsersData> {
  const response = await respond(usersLoader, get(`/admin/users${search}`, cookie));
  expect(response.status).toBe(200);
  return response.json();
}

function setRole(email: string, role: string, customRole?: string, cookie = myCookie, confirm?: "yes") {
  const fields = { email, role, ...(customRole !== undefined ? { customRole } : {}), ...(confirm ? { confirm } : {}) };
  return respond(usersAction, postForm("/admin/users", fields, { cookie }));
}

/** Granting admin, confirmed (the page asks once more first). */
function grantAdmin(email: string, cookie = myCookie) {
  return setRole(email, "admin", undefined, cookie, "yes");
}

describe("the users list", () => {
  it("joins the identity service with users/{email}: email, name, role, created, last login; search by email", async () => {
    const other = await createAccount(firebase, { role: "premium", displayName: "Pia Premium", prefix: "listed" });
    const { users } = (await usersPage(`?q=${encodeURIComponent(other.email.slice(0, 15))}`)).listing;
    expect(users.map((u) => u.email)).toEqual([other.email]);
    expect(users[0]).toMatchObject({ name: "Pia Premium", role: "premium" });
    expect(Date.parse(users[0].createdAt!)).toBeGreaterThan(Date.now() - 60_000);

    const mine = (await usersPage(`?q=${encodeURIComponent(me.email)}`)).listing.users;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ email: me.email, role: "admin" });
    expect(mine[0].lastSignInAt).not.toBeNull();

    expect((await usersPage("?q=nobody-has-this-address")).listing.users).toEqual([]);
  });
});

describe("changing a role", () => {
  it("writes users/{email}.stripeRole, records who, when and old → new, and shows on the page", async () => {
    const target = await createAccount(firebase);
    const targetCookie = await sessionCookieFor(target);
    expect((await (await respond(rootLoader, get("/", targetCookie))).json()).isAdmin).toBe(false);

    // The first post only asks for a confirmation: nothing is written yet.
    const asked = await setRole(target.email, "admin");
    expect(asked.status).toBe(200);
    expect(await asked.json()).toMatchObject({ email: target.email, confirmAdmin: { role: "admin" } });
    expect(await readRole(target.email)).toBe("");

    const response = await grantAdmin(target.email);
    expect(response.status).toBe(200);
    expect((await response.json()).notice).toBe(`${target.email}: role changed from No role to Admin.`);
    expect(await readRole(target.email)).toBe("admin");

    const { changes } = await usersPage();
    expect(changes[0]).toMatchObject({
      actorEmail: me.email,
      targetEmail: target.email,
      oldRole: "",
      newRole: "admin",
    });
    expect(Date.parse(changes[0].createdAt)).toBeGreaterThan(Date.now() - 60_000);

    // The user's next page shows it.
    expect((await (await respond(rootLoader, get("/", targetCookie))).json()).isAdmin).toBe(true);

    await setRole(target.email, "custom", "team-plan");
    expect(await readRole(target.email)).toBe("team-plan");
    await setRole(target.email, "none");
    expect(await readRole(target.email)).toBe("");
    const latest = (await usersPage()).changes.slice(0, 2);
    expect(latest.map((c) => [c.oldRole, c.newRole])).toEqual([
      ["team-plan", ""],
      ["admin", "team-plan"],
    ]);
  });

  it("setting the role a user already has changes and records nothing", async () => {
    const target = await createAccount(firebase, { role: "premium" });
    const before = (await usersPage()).changes.length;
    const response = await setRole(target.email, "premium");
    expect((await response.json()).notice).toBe(`${target.email} already has the role Premium.`);
    const after = (await usersPage()).changes;
    expect(after.length).toBe(before);
    expect(after.some((c) => c.targetEmail === target.email)).toBe(false);
  });

  it("bad input → 400 with field errors, nothing written", async () => {
    const target = await createAccount(firebase, { role: "premium" });
    const cases: Array<[Record<string, string>, string]> = [
      [{ email: target.email, role: "custom", customRole: "Bad Role!" }, "customRole"],
      [{ email: target.email, role: "custom" }, "customRole"],
      [{ email: target.email, role: "superuser" }, "role"],
      [{ email: "not-an-email", role: "admin" }, "email"],
      [{ role: "admin" }, "email"],
    ];
    for (const [fields, field] of cases) {
      const response = await respond(usersAction, postForm("/admin/users", fields, { cookie: myCookie }));
      expect(response.status).toBe(400);
      expect((await response.json()).fieldErrors[field]).toEqual(expect.any(String));
    }
    expect(await readRole(target.email)).toBe("premium");
  });
});

/** Whether the cookie still opens a session (the root loader says who is signed in). */
async function signedIn(cookie: string): Promise<boolean> {
  return (await (await respond(rootLoader, get("/", cookie))).json()).user !== null;
}

function accountAction(intent: string, uid: string, cookie = myCookie) {
  return respond(usersAction, postForm("/admin/users", { intent, uid }, { cookie }));
}

describe("an account's use this month", () => {
  it("sums messages and tokens of this UTC month only, per user", async () => {
    const busy = await createAccount(firebase, { prefix: "usage" });
    const db = await getDb();
    const today = new Date().toISOString().slice(0, 10);
    const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 15))
      .toISOString()
      .slice(0, 10);
    await db.insert(usageDaily).values([
      { uid: busy.uid, day: today, messages: 7, inputTokens: 1200, outputTokens: 3400 },
      { uid: busy.uid, day: lastMonth, messages: 50, inputTokens: 99_999, outputTokens: 99_999 },
    ]);
    const page = await usersPage(`?q=${encodeURIComponent(busy.email)}`);
    expect(page.listing.usageUnavailable).toBe(false);
    expect(page.listing.users[0].usage).toEqual({ messages: 7, tokens: 4600 });
    // The role descriptions come from the quota configuration (defaults: 20 a day, admins unlimited).
    expect(page.allowances).toMatchObject({ none: 20, admin: null });
  });
});

describe("disabling, enabling and logging out an account", () => {
  it("disable: their session ends, they cannot log in; enable: they can again; both are recorded", async () => {
    const target = await createAccount(firebase, { prefix: "disable-me" });
    const cookie = await sessionCookieFor(target);
    expect(await signedIn(cookie)).toBe(true);
    await pastSignInSecond(cookie); // so that the revocation that comes with disabling is after this login

    const response = await accountAction("disable", target.uid);
    expect(response.status).toBe(200);
    expect((await response.json()).notice).toBe(
      `${target.email} is disabled: they are logged out everywhere and cannot log in.`,
    );
    expect((await firebase.auth.getUser(target.uid)).disabled).toBe(true);
    expect(await signedIn(cookie)).toBe(false);
    await expect(freshIdToken(target)).rejects.toThrow();

    const listed = (await usersPage(`?q=${encodeURIComponent(target.email)}`)).listing.users[0];
    expect(listed.disabled).toBe(true);

    const again = await accountAction("disable", target.uid);
    expect((await again.json()).notice).toBe(`${target.email} already is disabled.`);

    expect((await accountAction("enable", target.uid)).status).toBe(200);
    expect((await firebase.auth.getUser(target.uid)).disabled).toBe(false);
    // The old session stays ended; a new sign-in works.
    expect(await signedIn(cookie)).toBe(false);
    expect(await signedIn(await sessionCookieFor(target))).toBe(true);

    const entries = (await usersPage()).accountActions.filter((entry) => entry.targetEmail === target.email);
    expect(entries.map((entry) => [entry.actorEmail, entry.action])).toEqual([
      [me.email, "enable"],
      [me.email, "disable"],
    ]);
  });

  it("log out everywhere ends every session of theirs, and is recorded; they may log in again", async () => {
    const target = await createAccount(firebase, { prefix: "signout" });
    const [phone, laptop] = [await sessionCookieFor(target), await sessionCookieFor(target)];
    await pastSignInSecond(phone, laptop);
    const response = await accountAction("sign-out-everywhere", target.uid);
    expect(response.status).toBe(200);
    expect((await response.json()).notice).toBe(`${target.email} is logged out on every device.`);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(false);
    // At once: a sign-in in the revocation's own second is valid too (ADR 042).
    expect(await signedIn(await sessionCookieFor(target))).toBe(true);
    const [latest] = (await usersPage()).accountActions;
    expect(latest).toMatchObject({ actorEmail: me.email, targetEmail: target.email, action: "sign-out-everywhere" });
  });

  it("refuses the admin's own account, an unknown account and bad input, changing nothing", async () => {
    const own = await accountAction("disable", me.uid);
    expect(own.status).toBe(409);
    expect((await own.json()).fieldErrors.form).toBe("You cannot disable or enable your own account.");
    const ownSignOut = await accountAction("sign-out-everywhere", me.uid);
    expect((await ownSignOut.json()).fieldErrors.form).toMatch(/your dashboard/);
    expect(await signedIn(myCookie)).toBe(true);

    const unknown = await accountAction("disable", "no-such-uid-anywhere");
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).fieldErrors.form).toBe("That account no longer exists.");

    const target = await createAccount(firebase);
    for (const [intent, uid] of [
      ["explode", target.uid],
      ["disable", ""],
    ]) {
      const response = await accountAction(intent, uid);
      expect(response.status).toBe(400);
    }
    expect((await firebase.auth.getUser(target.uid)).disabled).toBe(false);
  });

  it("two admins disabling each other at the same moment: one succeeds, an enabled admin remains", async () => {
    const first = await createAccount(firebase, { role: "admin" });
    const second = await createAccount(firebase, { role: "admin" });
    const [firstCookie, secondCookie] = await Promise.all([sessionCookieFor(first), sessionCookieFor(second)]);
    const others = await firebase.firestore.collection("users").where("stripeRole", "==", "admin").get();
    const parked = others.docs.filter((d) => d.id !== first.email && d.id !== second.email);
    await Promise.all(parked.map((d) => d.ref.set({ stripeRole: "parked-admin" }, { merge: true })));
    try {
      const responses = await Promise.all([
        accountAction("disable", second.uid, firstCookie),
        accountAction("disable", first.uid, secondCookie),
      ]);
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
      const refused = responses.find((r) => r.status === 409)!;
      expect((await refused.json()).fieldErrors.form).toMatch(
        /is the only admin: make someone else an admin before disabling this account\.$/,
      );
      const states = await Promise.all([firebase.auth.getUser(first.uid), firebase.auth.getUser(second.uid)]);
      expect(states.filter((user) => !user.disabled)).toHaveLength(1);
    } finally {
      await Promise.all(parked.map((d) => d.ref.set({ stripeRole: "admin" }, { merge: true })));
    }
  });
});

describe("the last admin", () => {
  // The emulator is shared by every test file: make `solo` the only admin that counts.
  async function makeOnlyAdmin(solo: TestAccount) {
    const admins = await firebase.firestore.collection("users").where("stripeRole", "==", "admin").get();
    await Promise.all(
      admins.docs
        .filter((d) => d.id !== solo.email)
        .map((d) => d.ref.set({ stripeRole: "former-admin" }, { merge: true })),
    );
  }

  it("cannot remove their own admin role; an unverified 'admin' does not count as another", async () => {
    const solo = await createAccount(firebase, { role: "admin" });
    const soloCookie = await sessionCookieFor(solo);
    await makeOnlyAdmin(solo);
    await createAccount(firebase, { role: "admin", verified: false });

    const response = await setRole(solo.email, "premium", undefined, soloCookie);
    expect(response.status).toBe(409);
    const body = await response.json();
    expect(body.fieldErrors.role).toMatch(/only admin/);
    expect(await readRole(solo.email)).toBe("admin");
    expect(
      (await usersPage("", soloCookie)).changes.some((c) => c.targetEmail === solo.email && c.oldRole === "admin"),
    ).toBe(false);
  });

  it("with another admin, an admin may step down, and leaves the admin area", async () => {
    const leaving = await createAccount(firebase, { role: "admin" });
    const leavingCookie = await sessionCookieFor(leaving);
    await makeOnlyAdmin(leaving);
    const successor = await createAccount(firebase, { role: "premium" });

    expect((await grantAdmin(successor.email, leavingCookie)).status).toBe(200);
    const response = await setRole(leaving.email, "none", undefined, leavingCookie);
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    expect(await readRole(leaving.email)).toBe("");
    expect((await respond(usersLoader, get("/admin/users", leavingCookie))).status).toBe(403);
  });

  /** Only `admins` count as admins while `work` runs; the others get their role back after it. */
  async function onlyAdmins(admins: TestAccount[], work: () => Promise<void>) {
    const others = await firebase.firestore.collection("users").where("stripeRole", "==", "admin").get();
    const parked = others.docs.filter((d) => !admins.some((a) => a.email === d.id));
    await Promise.all(parked.map((d) => d.ref.set({ stripeRole: "parked-admin" }, { merge: true })));
    try {
      await work();
    } finally {
      await Promise.all(parked.map((d) => d.ref.set({ stripeRole: "admin" }, { merge: true })));
    }
  }

  it("two admins stepping down at the same moment: exactly one succeeds, one admin remains (ADR 049)", async () => {
    const first = await createAccount(firebase, { role: "admin" });
    const second = await createAccount(firebase, { role: "admin" });
    const [firstCookie, secondCookie] = await Promise.all([sessionCookieFor(first), sessionCookieFor(second)]);
    await onlyAdmins([first, second], async () => {
      const responses = await Promise.all([
        setRole(first.email, "none", undefined, firstCookie),
        setRole(second.email, "none", undefined, secondCookie),
      ]);
      expect(responses.map((r) => r.status).sort()).toEqual([302, 409]);
      const roles = await Promise.all([readRole(first.email), readRole(second.email)]);
      expect(roles.filter((role) => role === "admin")).toHaveLength(1);
      const refused = responses.find((r) => r.status === 409)!;
      expect((await refused.json()).fieldErrors.role).toMatch(/only admin/);
    });
  });

  it("two admins demoting each other at the same moment leave one admin", async () => {
    const first = await createAccount(firebase, { role: "admin" });
    const second = await createAccount(firebase, { role: "admin" });
    const [firstCookie, secondCookie] = await Promise.all([sessionCookieFor(first), sessionCookieFor(second)]);
    await onlyAdmins([first, second], async () => {
      const responses = await Promise.all([
        setRole(second.email, "premium", undefined, firstCookie),
        setRole(first.email, "premium", undefined, secondCookie),
      ]);
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
      const roles = await Promise.all([readRole(first.email), readRole(second.email)]);
      expect(roles.filter((role) => role === "admin")).toHaveLength(1);
    });
  });
});
