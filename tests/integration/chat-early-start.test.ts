import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getSessionUser, peekSession } from "~/auth/session.server";
import { getDb } from "~/db/client.server";
import { conversations } from "~/db/schema";
import { holdAppClockInEachTest } from "../support/clock";
import { pastSignInSecond } from "../support/identity";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { dataOf, firstMessage, messagesToday, postChat, readChunks, waitUntil } from "./chat-support";

/**
 * The chat endpoint starts the model request, and counts the message, on the
 * session as this instance's caches last saw it, while the fresh check runs
 * (docs/decisions/033). These tests turn the caches on (the other suites run
 * with them off) and prove that whatever the fresh check refuses shows no
 * token, stores nothing and gives the quota back; and that the per-minute
 * abuse limit answers 429 with a Retry-After and plain words.
 */
const ENV = {
  AUTH_CACHE_TTL_SECONDS: "30",
  LLM_MODELS: "test-model,premium-model",
  LLM_ROLE_MODELS: "none=test-model",
  QUOTA_DAILY_MESSAGES: "none=50;premium=100",
  CHAT_RATE_LIMIT_PER_MINUTE: "3",
  CHAT_RATE_LIMIT_PER_ADDRESS: "4",
  TRUST_PROXY: "1",
};
let restoreEnv: () => void;

const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model", "premium-model"] });
  restoreEnv = setAppEnv({ ...ENV, LLM_BASE_URL: model.url });
});

afterAll(async () => {
  restoreEnv();
  await model.close();
  await firebase.close();
});

beforeEach(() => {
  model.reset();
});
// The rate limit counts in fixed minutes: with the app's clock held still, none ends mid-test.
holdAppClockInEachTest();

async function conversationExists(id: string) {
  const db = await getDb();
  return (await db.select().from(conversations).where(eq(conversations.id, id))).length > 0;
}

/** Signed in, with one message sent (so this instance's caches hold the session). */
async function chattingUser(role: string) {
  const account = await createAccount(firebase, { role });
  const cookie = await sessionCookieFor(account);
  const chunks = await readChunks(
    await postChat(firstMessage("hello", role === "premium" ? "premium-model" : "test-model"), { cookie }),
  );
  expect(dataOf(chunks, "saved")).toBeDefined();
  return { account, cookie };
}

/** A reply slow enough that a request cancelled by a refusal is seen aborted, not finished. */
function slowReply() {
  model.enqueue({ type: "text", text: "This must never be shown after a refusal", chunkDelayMs: 200 });
}

async function everyModelRequestClosedWithoutAnswer(from: number) {
  const started = model.requests.slice(from).filter((request) => request.path === "/v1/chat/completions");
  await waitUntil("the model requests are closed", async () => {
    const outcomes = await Promise.all(
      started.map((request) => Promise.race([request.outcome, Promise.resolve("open")])),
    );
    return !outcomes.includes("open");
  });
  return Promise.all(started.map((request) => request.outcome));
}

describe("peekSession: the session with no round trip", () => {
  it("knows the account from the cookie alone, the whole session only while the caches hold it, and nothing after logout", async () => {
    const account = await createAccount(firebase, { role: "premium" });
    const cookie = await sessionCookieFor(account);
    const request = () => appRequest("/api/chat", { method: "POST", cookie, headers: { Origin: APP_ORIGIN } });

    // A new sign-in starts from empty caches: the account is known, the session not yet.
    expect(await peekSession(request())).toEqual({ uid: account.uid, cached: null });
    await getSessionUser(request(), { fresh: true });
    const peeked = await peekSession(request());
    expect(peeked?.cached).toMatchObject({
      status: "signed-in",
      role: "premium",
      user: { uid: account.uid, email: account.email },
    });

    const { action } = await import("~/routes/api.auth.logout");
    await action({
      request: appRequest("/api/auth/logout", { method: "POST", cookie, headers: { Origin: APP_ORIGIN } }),
      params: {},
      context: {},
    });
    expect((await peekSession(request()))?.cached ?? null).toBeNull();
    expect(await peekSession(appRequest("/api/chat", { cookie: "__session=garbage" }))).toBeNull();
  });
});

describe("POST /api/chat: started early, confirmed before anything is shown", () => {
  it("a session revoked on another instance (caches still valid here) gets 401, no token, quota given back", async () => {
    const { account, cookie } = await chattingUser("");
    await pastSignInSecond(cookie);
    await firebase.auth.revokeRefreshTokens(account.uid);

    slowReply();
    const before = model.requests.length;
    const body = firstMessage("after revocation");
    const response = await postChat(body, { cookie });

    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "Please log in to chat." });
    expect(response.headers.get("Set-Cookie")).toMatch(/__session=;/);
    // The early model request (if it got that far) was cancelled.
    expect(await everyModelRequestClosedWithoutAnswer(before)).not.toContain("completed");
    expect(await messagesToday(account.uid)).toBe(1);
    expect(await conversationExists(body.conversationId)).toBe(false);
  });

  it("a role removed elsewhere: the model it no longer allows is refused, and the quota is given back", async () => {
    const { account, cookie } = await chattingUser("premium");
    await firebase.firestore.collection("users").doc(account.email).set({ stripeRole: "" });

    slowReply();
    const before = model.requests.length;
    const body = firstMessage("premium again", "premium-model");
    const response = await postChat(body, { cookie });

    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatch(/"premium-model" isn't available to you/);
    expect(await everyModelRequestClosedWithoutAnswer(before)).not.toContain("completed");
    expect(await messagesToday(account.uid)).toBe(1);
    expect(await conversationExists(body.conversationId)).toBe(false);
  });

  it("a role changed elsewhere to one with another quota is counted against the new quota", async () => {
    const { account, cookie } = await chattingUser("premium");
    // premium → none: same model allowed (test-model), a different daily limit.
    await firebase.firestore.collection("users").doc(account.email).set({ stripeRole: "" });
    const chunks = await readChunks(await postChat(firstMessage("still here"), { cookie }));
    const confirmation = dataOf<{ remaining: number }>(chunks, "saved");
    expect(confirmation?.remaining).toBe(50 - 2);
    expect(await messagesToday(account.uid)).toBe(2);
  });
});

describe("POST /api/chat: per-minute abuse limit", () => {
  it("refuses with 429, a Retry-After and plain words once an account sends too fast; nothing is counted", async () => {
    const { account, cookie } = await chattingUser("");
    for (const text of ["two", "three"]) {
      expect(dataOf(await readChunks(await postChat(firstMessage(text), { cookie })), "saved")).toBeDefined();
    }
    slowReply();
    const before = model.requests.length;
    const body = firstMessage("four, too fast");
    const refused = await postChat(body, { cookie });

    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const { error } = await refused.json();
    expect(error).toMatch(
      /^You're sending messages faster than allowed\. Please wait (a second|\d+ seconds) and send again\.$/,
    );
    expect(await everyModelRequestClosedWithoutAnswer(before)).not.toContain("completed");
    expect(await messagesToday(account.uid)).toBe(3);
    expect(await conversationExists(body.conversationId)).toBe(false);
  });

  it("counts per client address too, across accounts, when a trusted proxy names it", async () => {
    const send = async (cookie: string, text: string) => {
      const { action } = await import("~/routes/api.chat");
      const request = appRequest("/api/chat", {
        method: "POST",
        cookie,
        headers: { Origin: APP_ORIGIN, "Content-Type": "application/json", "X-Forwarded-For": "203.0.113.9" },
        body: JSON.stringify(firstMessage(text)),
      });
      return (await action({ request, params: {}, context: {} })) as Response;
    };
    const first = await createAccount(firebase, { role: "" });
    const second = await createAccount(firebase, { role: "" });
    const [firstCookie, secondCookie] = [await sessionCookieFor(first), await sessionCookieFor(second)];
    const statuses: number[] = [];
    for (const [cookie, text] of [
      [firstCookie, "a1"],
      [firstCookie, "a2"],
      [secondCookie, "b1"],
      [secondCookie, "b2"],
      [secondCookie, "b3"],
    ]) {
      const response = await send(cookie, text);
      statuses.push(response.status);
      await response.text();
    }
    // Four a minute from one address, whoever is signed in.
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });
});
