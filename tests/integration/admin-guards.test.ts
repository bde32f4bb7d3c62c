import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addContactMessage } from "~/data/inbox.server";
import { getDb } from "~/db/client.server";
import { loader as indexLoader } from "~/routes/admin._index";
import { action as messagesAction, loader as messagesLoader } from "~/routes/admin.messages";
import { action as messageAction, loader as messageLoader } from "~/routes/admin.messages_.$messageId";
import { action as usersAction, loader as usersLoader } from "~/routes/admin.users";
import { action as apiAction, loader as apiLoader } from "~/routes/admin.api";
import { action as memoryAction, loader as memoryLoader } from "~/routes/admin.memory";
import { healAll, setFault } from "../support/faults";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { get, postForm, respond } from "./admin-support";

/**
 * Every loader and action under /admin, including direct POSTs to the
 * actions: anonymous → sign in, signed-in non-admin → 403 with no admin
 * data, admin → served (`requireAdmin`, ADR 020).
 */
const firebase = admin();
afterAll(() => firebase.close());

let messageId: string;
let target: string;
const cookies: Record<"user" | "unverifiedAdmin" | "admin", string> = { user: "", unverifiedAdmin: "", admin: "" };

beforeAll(async () => {
  const db = await getDb();
  messageId = (
    await addContactMessage(db, { email: "guard@example.com", uid: null, name: null, role: "" }, "guarded text")
  ).id;
  target = (await createAccount(firebase)).email;
  cookies.user = await sessionCookieFor(await createAccount(firebase, { role: "premium" }));
  cookies.unverifiedAdmin = await sessionCookieFor(await createAccount(firebase, { role: "admin", verified: false }));
  cookies.admin = await sessionCookieFor(await createAccount(firebase, { role: "admin" }));
});

interface Endpoint {
  name: string;
  path: () => string;
  call: (cookie?: string) => Promise<Response>;
  adminStatus: number;
}

const endpoints: Endpoint[] = [
  { name: "GET /admin", path: () => "/admin", call: (c) => respond(indexLoader, get("/admin", c)), adminStatus: 302 },
  {
    name: "GET /admin/messages",
    path: () => "/admin/messages",
    call: (c) => respond(messagesLoader, get("/admin/messages", c)),
    adminStatus: 200,
  },
  {
    name: "POST /admin/messages",
    path: () => "/admin/messages",
    call: (c) =>
      respond(messagesAction, postForm("/admin/messages", { intent: "mark-unread", ids: messageId }, { cookie: c })),
    adminStatus: 200,
  },
  {
    name: "GET /admin/messages/:id",
    path: () => `/admin/messages/${messageId}`,
    call: (c) => respond(messageLoader, get(`/admin/messages/${messageId}`, c), { messageId }),
    adminStatus: 200,
  },
  {
    name: "POST /admin/messages/:id",
    path: () => `/admin/messages/${messageId}`,
    call: (c) =>
      respond(messageAction, postForm(`/admin/messages/${messageId}`, { intent: "archive" }, { cookie: c }), {
        messageId,
      }),
    adminStatus: 200,
  },
  {
    name: "GET /admin/users",
    path: () => "/admin/users",
    call: (c) => respond(usersLoader, get("/admin/users", c)),
    adminStatus: 200,
  },
  {
    name: "POST /admin/users",
    path: () => "/admin/users",
    call: (c) => respond(usersAction, postForm("/admin/users", { email: target, role: "premium" }, { cookie: c })),
    adminStatus: 200,
  },
  {
    name: "GET /admin/api",
    path: () => "/admin/api",
    call: (c) => respond(apiLoader, get("/admin/api", c)),
    adminStatus: 200,
  },
  {
    name: "POST /admin/api",
    path: () => "/admin/api",
    // Turned on: what API_ROLES gives by default, so the other tests see no change.
    call: (c) => respond(apiAction, postForm("/admin/api", { roleKey: "none", enabled: "on" }, { cookie: c })),
    adminStatus: 200,
  },
  {
    name: "GET /admin/memory",
    path: () => "/admin/memory",
    call: (c) => respond(memoryLoader, get("/admin/memory", c)),
    adminStatus: 200,
  },
  {
    name: "POST /admin/memory",
    path: () => "/admin/memory",
    // A role no other test uses, so the other tests see no change.
    call: (c) =>
      respond(memoryAction, postForm("/admin/memory", { roleKey: "guard-check", enabled: "on" }, { cookie: c })),
    adminStatus: 200,
  },
];

describe.each(endpoints)("$name", (endpoint) => {
  it("anonymous → redirected to log in, back to this page after", async () => {
    const response = await endpoint.call();
    expect([302, 303]).toContain(response.status);
    expect(response.headers.get("Location")).toBe(`/login?redirectTo=${encodeURIComponent(endpoint.path())}`);
  });

  it("a signed-in user (premium) → 403, no admin data", async () => {
    const response = await endpoint.call(cookies.user);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: "This page is for admins only." });
  });

  it("role admin on an unverified address → 403", async () => {
    expect((await endpoint.call(cookies.unverifiedAdmin)).status).toBe(403);
  });

  it(`admin → ${endpoint.adminStatus}`, async () => {
    const response = await endpoint.call(cookies.admin);
    expect(response.status).toBe(endpoint.adminStatus);
    if (endpoint.adminStatus === 302) expect(response.headers.get("Location")).toBe("/admin/messages");
    else expect(response.headers.get("Cache-Control")).toBe("no-store");
  });
});

describe("faults: the admin area fails closed", () => {
  afterAll(healAll);

  it("PostgreSQL down → the inbox answers 503, not 500", async () => {
    await setFault("postgres", "refuse");
    const response = await respond(messagesLoader, get("/admin/messages", cookies.admin));
    expect(response.status).toBe(503);
    await healAll();
  });

  it("the identity service stalled → the users page answers 503 within the deadline", async () => {
    const started = Date.now();
    // The session check itself needs the identity service: stall it after signing in.
    await setFault("identity", "stall");
    const response = await respond(usersLoader, get("/admin/users", cookies.admin));
    expect(response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5_000);
    await healAll();
  });
});
