import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportAccountData, getAccountDetails } from "~/data/account.server";
import { createConversation } from "~/data/conversations.server";
import { saveExchange } from "~/data/messages.server";
import { getDb } from "~/db/client.server";
import { messageFeedback, userPreferences } from "~/db/schema";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import type { TestAccount } from "../support/identity";
import { appHandler } from "../support/remix-app";

/** 👍/👎 on replies (owner only) and the theme preference, through the whole app in-process. */

const firebase = admin();
afterAll(() => firebase.close());

let handle: (request: Request) => Promise<Response>;
let owner: TestAccount;
let ownerCookie: string;
let otherCookie: string;
let conversationId: string;
let replyId: string;
let userMessageId: string;

beforeAll(async () => {
  handle = await appHandler();
  owner = await createAccount(firebase, { prefix: "rater" });
  ownerCookie = await sessionCookieFor(owner);
  otherCookie = await sessionCookieFor(await createAccount(firebase, { prefix: "stranger" }));
  const db = await getDb();
  conversationId = (await createConversation(db, { uid: owner.uid, title: "Rated" })).id;
  replyId = randomUUID();
  userMessageId = randomUUID();
  await saveExchange(db, {
    uid: owner.uid,
    conversationId,
    kind: "submit",
    user: { id: userMessageId, text: "Question", sentAt: new Date() },
    reply: {
      id: replyId,
      parts: [{ type: "text", text: "Answer" }],
      content: "Answer",
      status: "completed",
      model: "demo",
      inputTokens: 1,
      outputTokens: 1,
    },
    usageDay: new Date().toISOString().slice(0, 10),
    title: "Rated",
  });
});

function post(path: string, fields: Record<string, string>, cookie: string) {
  return handle(
    appRequest(path, {
      method: "POST",
      cookie,
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    }),
  );
}

const rate = (rating: string, cookie = ownerCookie, messageId = replyId, conversation = conversationId) =>
  post(
    `/nuvara/${conversation}?_data=routes%2Fnuvara.%24conversationId`,
    { intent: "feedback", messageId, rating },
    cookie,
  );

async function storedRating() {
  const [row] = await (await getDb()).select().from(messageFeedback).where(eq(messageFeedback.messageId, replyId));
  return row?.rating ?? null;
}

describe("👍/👎 on a reply", () => {
  it("the owner rates, changes and takes back a rating; the page loads it", async () => {
    expect((await rate("up")).status).toBe(200);
    expect(await storedRating()).toBe(1);
    expect((await rate("down")).status).toBe(200);
    expect(await storedRating()).toBe(-1);
    const page = await handle(
      appRequest(`/nuvara/${conversationId}?_data=routes%2Fnuvara.%24conversationId`, { cookie: ownerCookie }),
    );
    expect((await page.json()).feedback).toEqual({ [replyId]: -1 });
    expect((await rate("none")).status).toBe(200);
    expect(await storedRating()).toBeNull();
  });

  it("another user's reply is a 404 and stores nothing", async () => {
    const response = await rate("up", otherCookie);
    expect(response.status).toBe(404);
    expect(await storedRating()).toBeNull();
  });

  it("the user's own message (not a reply) and an unknown id are 404s", async () => {
    expect((await rate("up", ownerCookie, userMessageId)).status).toBe(404);
    expect((await rate("up", ownerCookie, randomUUID())).status).toBe(404);
  });

  it("bad input is a 400 with a clear message", async () => {
    const badRating = await rate("great");
    expect(badRating.status).toBe(400);
    expect((await badRating.json()).error).toBe("Choose 👍, 👎 or none.");
    const badId = await rate("up", ownerCookie, "not-an-id");
    expect(badId.status).toBe(400);
    expect((await badId.json()).error).toBe("That reply does not exist.");
  });

  it("is in the account export", async () => {
    expect((await rate("up")).status).toBe(200);
    const db = await getDb();
    const details = (await getAccountDetails(owner.uid))!;
    const exported = await exportAccountData(db, details, { role: "user", plan: "Free" });
    expect(exported.replyFeedback).toEqual([expect.objectContaining({ messageId: replyId, rating: 1 })]);
  });
});

describe("the theme", () => {
  const setTheme = (theme: string, cookie = ownerCookie) =>
    post("/dashboard?_data=routes%2Fdashboard", { intent: "theme", theme }, cookie);

  it("is stored for the account and rendered on <html> by the server", async () => {
    expect((await setTheme("dark")).status).toBe(200);
    const [row] = await (await getDb()).select().from(userPreferences).where(eq(userPreferences.uid, owner.uid));
    expect(row.theme).toBe("dark");
    const html = await (await handle(appRequest("/dashboard", { cookie: ownerCookie }))).text();
    expect(html).toContain('<html lang="en" data-theme="dark"');
    // Another user still has the system's.
    const other = await (await handle(appRequest("/dashboard", { cookie: otherCookie }))).text();
    expect(other).toContain('<html lang="en">');
  });

  it("System renders no attribute", async () => {
    expect((await setTheme("system")).status).toBe(200);
    const html = await (await handle(appRequest("/", { cookie: ownerCookie }))).text();
    expect(html).toContain('<html lang="en">');
  });

  it("anything else is a 400 with a clear message and changes nothing", async () => {
    expect((await setTheme("light")).status).toBe(200);
    for (const bad of ["purple", "", "DARK"]) {
      const response = await setTheme(bad);
      expect(response.status, bad).toBe(400);
      expect((await response.json()).fieldErrors.theme).toBe("Choose System, Light or Dark.");
    }
    const [row] = await (await getDb()).select().from(userPreferences).where(eq(userPreferences.uid, owner.uid));
    expect(row.theme).toBe("light");
  });
});
