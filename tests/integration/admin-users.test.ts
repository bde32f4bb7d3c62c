import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRole } from "~/data/roles.server";
import { loader as rootLoader } from "~/root";
import { action as usersAction, loader as usersLoader } from "~/routes/admin.users";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import type { TestAccount } from "../support/identity";
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
  listing: { users: Array<{ email: string; name: string | null; role: string; createdAt: string | null; lastSignInAt: string | null }>; nextPageToken: string | null };
  changes: Array<{ actorEmail: string; targetEmail: string; oldRole: string; newRole: string; createdAt: string }>;
}

async function usersPage(search = "", cookie = myCookie): Promise<UsersData> {
  const response = await respond(usersLoader, get(`/admin/users${search}`, cookie));
  expect(response.status).toBe(200);
  return response.json();
}

function setRole(email: string, role: string, customRole?: string, cookie = myCookie) {
  return respond(usersAction, postForm("/admin/users", { email, role, ...(customRole !== undefined ? { customRole } : {}) }, { cookie }));
}

describe("the users list", () => {
  it("joins the identity service with users/{email}: email, name, role, created, last sign-in; search by email", async () => {
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

    const response = await setRole(target.email, "admin");
    expect(response.status).toBe(200);
    expect((await response.json()).notice).toBe(`${target.email}: role changed from none to admin.`);
    expect(await readRole(target.email)).toBe("admin");

    const { changes } = await usersPage();
    expect(changes[0]).toMatchObject({ actorEmail: me.email, targetEmail: target.email, oldRole: "", newRole: "admin" });
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
    expect((await response.json()).notice).toBe(`${target.email} already has the role premium.`);
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

describe("the last admin", () => {
  // The emulator is shared by every test file: make `solo` the only admin that counts.
  async function makeOnlyAdmin(solo: TestAccount) {
    const admins = await firebase.firestore.collection("users").where("stripeRole", "==", "admin").get();
    await Promise.all(admins.docs.filter((d) => d.id !== solo.email).map((d) => d.ref.set({ stripeRole: "former-admin" }, { merge: true })));
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
    expect((await usersPage("", soloCookie)).changes.some((c) => c.targetEmail === solo.email && c.oldRole === "admin")).toBe(false);
  });

  it("with another admin, an admin may step down, and leaves the admin area", async () => {
    const leaving = await createAccount(firebase, { role: "admin" });
    const leavingCookie = await sessionCookieFor(leaving);
    await makeOnlyAdmin(leaving);
    const successor = await createAccount(firebase, { role: "premium" });

    expect((await setRole(successor.email, "admin", undefined, leavingCookie)).status).toBe(200);
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

  it("two admins stepping down at the same moment: exactly one succeeds, one admin remains (L-1)", async () => {
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
