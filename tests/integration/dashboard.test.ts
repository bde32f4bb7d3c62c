import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { createConversation } from "~/data/conversations.server";
import { getDb } from "~/db/client.server";
import { action as dashboardAction, loader as dashboardLoader } from "~/routes/dashboard";
import { healAll, setFault } from "../support/faults";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { firstMessage, postChat } from "./chat-support";

/** The dashboard's loader and action: figures, quota per role, account facts, the display name. */
const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  Object.assign(process.env, { LLM_BASE_URL: model.url, LLM_MODELS: "test-model" });
  resetConfig();
});

afterAll(async () => {
  delete process.env.LLM_BASE_URL;
  delete process.env.LLM_MODELS;
  resetConfig();
  await model.close();
  await firebase.close();
});

afterEach(healAll);

async function dashboard(cookie?: string) {
  const response = await dashboardLoader({ request: appRequest("/dashboard", { cookie }), params: {}, context: {} });
  return { status: response.status, data: await response.json() };
}

async function signedIn(options: Parameters<typeof createAccount>[1] = {}) {
  const account = await createAccount(firebase, options);
  return { account, cookie: await sessionCookieFor(account) };
}

describe("dashboard loader", () => {
  it("sends a signed-out visitor to log in", async () => {
    const thrown = await dashboard().catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(302);
    expect((thrown as Response).headers.get("Location")).toBe("/login?redirectTo=%2Fdashboard");
  });

  it("shows the plan and the daily quota of each role", async () => {
    const cases = [
      { role: undefined, plan: "Free", limit: 20 },
      { role: "premium", plan: "Premium", limit: 200 },
      { role: "admin", plan: "Admin", limit: null },
      { role: "team", plan: "Team", limit: 200 },
    ];
    for (const { role, plan, limit } of cases) {
      const { cookie } = await signedIn({ role });
      const { data } = await dashboard(cookie);
      expect(data.plan, String(role)).toBe(plan);
      expect(data.quota, String(role)).toMatchObject({ used: 0, limit, remaining: limit });
      expect(data.adminPending).toBe(false);
    }
    // "admin" on an unverified address is no admin: other roles' quota, and the page says why.
    const { cookie } = await signedIn({ role: "admin", verified: false });
    const { data } = await dashboard(cookie);
    expect(data).toMatchObject({ plan: "Admin", adminPending: true, quota: { limit: 200 } });
  });

  it("counts today's messages and tokens after chatting, and lists the last five conversations, newest first", async () => {
    const { account, cookie } = await signedIn({ displayName: "Chatty Cathy" });
    for (const text of ["one two three", "four five", "six"]) {
      const response = await postChat(firstMessage(text), { cookie });
      expect(response.status).toBe(200);
      await response.text();
    }
    const db = await getDb();
    for (const title of ["Older A", "Older B", "Older C"]) {
      await createConversation(db, { uid: account.uid, title });
      // PGlite's clock can give two quick inserts the same timestamp; a tie's order is not the order made.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }

    const { data } = await dashboard(cookie);
    expect(data.quota).toMatchObject({ used: 3, limit: 20, remaining: 17 });
    expect(new Date(data.quota!.resetsAt).toISOString()).toMatch(/T00:00:00\.000Z$/);
    const usage = data.usage!;
    expect(usage).toHaveLength(30);
    const today = usage[29];
    expect(today.day).toBe(new Date().toISOString().slice(0, 10));
    expect(today.messages).toBe(3);
    // The scripted model counts a token per word: the replies "You said: …" have 2 + the words said.
    expect(today.outputTokens).toBe(2 + 3 + 2 + 2 + 2 + 1);
    expect(usage.slice(0, 29).every((day) => day.messages === 0)).toBe(true);
    expect(data.recent).toHaveLength(5);
    expect(data.recent![0].title).toBe("Older C");
    expect(data.profile).toMatchObject({ displayName: "Chatty Cathy", email: account.email });
  });

  it("shows the account as the identity service has it", async () => {
    const { account, cookie } = await signedIn({ verified: false });
    const { data } = await dashboard(cookie);
    expect(data.account).toMatchObject({
      uid: account.uid,
      email: account.email,
      emailVerified: false,
      hasPassword: true,
      providers: [{ id: "password", label: "Email and password" }],
    });
    const record = await firebase.auth.getUser(account.uid);
    expect(data.account!.createdAt).toBe(new Date(record.metadata.creationTime).toISOString());
    expect(data.account!.lastSignInAt).toBe(new Date(record.metadata.lastSignInTime).toISOString());
    expect(data.firebase.apiKey).toBeTruthy();
  });

  it("with PostgreSQL down, still shows the account, and says what cannot load", async () => {
    const { cookie } = await signedIn({ role: "premium" });
    await setFault("postgres", "refuse");
    const { status, data } = await dashboard(cookie);
    expect(status).toBe(200);
    // The role could not be checked either (the session's revocation list is in PostgreSQL): no plan rather than a wrong one.
    expect(data).toMatchObject({ usage: null, quota: null, recent: null, plan: null });
    expect(data.account).not.toBeNull();
  });
});

describe("dashboard action: display name", () => {
  async function rename(cookie: string, displayName: string) {
    const request = appRequest("/dashboard", {
      method: "POST",
      cookie,
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "display-name", displayName }).toString(),
    });
    const response = await dashboardAction({ request, params: {}, context: {} });
    const data = (await response.json()) as { notice?: string; fieldErrors?: { displayName?: string }; value?: string };
    return { status: response.status, data };
  }

  it("changes the name on the identity account", async () => {
    const { account, cookie } = await signedIn({ displayName: "Old Name" });
    const { status, data } = await rename(cookie, "  New   Name ");
    expect(status).toBe(200);
    expect(data.notice).toBe("Your name is now New Name.");
    expect((await firebase.auth.getUser(account.uid)).displayName).toBe("New Name");
    expect((await dashboard(cookie)).data.profile.displayName).toBe("New Name");
  });

  it("refuses an empty, too long or marked-up name with 400, giving back what was typed", async () => {
    const { account, cookie } = await signedIn({ displayName: "Kept Name" });
    for (const [typed, message] of [
      ["   ", /Enter a name/],
      ["x".repeat(81), /at most 80/],
      ["<img src=x onerror=alert(1)>", /cannot contain/],
    ] as const) {
      const { status, data } = await rename(cookie, typed);
      expect(status).toBe(400);
      expect(data.fieldErrors?.displayName).toMatch(message);
      expect(data.value).toBe(typed);
    }
    expect((await firebase.auth.getUser(account.uid)).displayName).toBe("Kept Name");
  });
});
