import { randomUUID } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportAccountData, getAccountDetails } from "~/data/account.server";
import { createConversation } from "~/data/conversations.server";
import { saveExchange } from "~/data/messages.server";
import { getDb } from "~/db/client.server";
import { conversations, messages } from "~/db/schema";
import { holdAppClockInEachTest } from "../support/clock";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import type { TestAccount } from "../support/identity";
import { appHandler } from "../support/remix-app";

/**
 * Share links (ADR 054): a read-only public snapshot at /s/<id>,
 * through the whole app in-process (headers, meta and rendered HTML as a
 * browser gets them).
 */

const firebase = admin();
afterAll(() => firebase.close());
// Making links is limited in fixed hours: with the app's clock held still, none ends mid-test.
holdAppClockInEachTest();

let handle: (request: Request) => Promise<Response>;
let owner: TestAccount;
let ownerCookie: string;
let visitor: TestAccount;
let visitorCookie: string;

beforeAll(async () => {
  handle = await appHandler();
  owner = await createAccount(firebase, { prefix: "sharer", displayName: "Private Owner Name" });
  ownerCookie = await sessionCookieFor(owner);
  visitor = await createAccount(firebase, { prefix: "visitor" });
  visitorCookie = await sessionCookieFor(visitor);
});

async function conversationOf(uid: string, exchanges: Array<[string, string]>, title = "Lisbon trip") {
  const db = await getDb();
  const { id } = await createConversation(db, { uid, title });
  for (const [question, answer] of exchanges) {
    await saveExchange(db, {
      uid,
      conversationId: id,
      kind: "submit",
      user: { id: randomUUID(), text: question, sentAt: new Date() },
      reply: {
        id: randomUUID(),
        parts: [{ type: "text", text: answer }],
        content: answer,
        status: "completed",
        model: "demo",
        inputTokens: 1,
        outputTokens: 1,
      },
      usageDay: new Date().toISOString().slice(0, 10),
      title,
    });
  }
  return id;
}

function post(path: string, fields: Record<string, string>, cookie?: string) {
  return handle(
    appRequest(path, {
      method: "POST",
      cookie,
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    }),
  );
}

const get = (path: string, cookie?: string) => handle(appRequest(path, { cookie }));

async function share(conversationId: string, fields: Record<string, string> = {}, cookie = ownerCookie) {
  const response = await post(`/api/conversations/${conversationId}/share`, { intent: "create", ...fields }, cookie);
  expect(response.status).toBe(201);
  return (await response.json()).share as { id: string; path: string; displayName: string | null };
}

describe("sharing a conversation", () => {
  it("makes a link with a long random id that anyone can open logged out: title, messages, noindex, no composer", async () => {
    const id = await conversationOf(owner.uid, [
      ["Plan a trip to Lisbon", "Start at **Belém**."],
      ["And day two?", "Take tram 28 to Alfama."],
    ]);
    const link = await share(id);
    expect(link.id).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(link.path).toBe(`/s/${link.id}`);

    const response = await get(link.path);
    expect(response.status).toBe(200);
    expect(response.headers.get("X-Robots-Tag")).toBe("noindex");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const html = await response.text();
    expect(html).toMatch(/<meta name="robots" content="noindex"\/?>/);
    expect(html).toContain("<title>Lisbon trip · Nuvara²</title>");
    expect(html).toContain("Shared conversation");
    // In order, replies as Markdown.
    const order = ["Plan a trip to Lisbon", "<strong>Belém</strong>", "And day two?", "Take tram 28 to Alfama."].map(
      (text) => html.indexOf(text),
    );
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(html).not.toContain("<textarea");
    expect(html).toContain("Log in to continue");
    expect(html).toContain(`href="/login?redirectTo=${encodeURIComponent(link.path)}"`);
    // Nothing of the owner: not their email, name or uid.
    for (const secret of [owner.email, "Private Owner Name", owner.uid]) expect(html).not.toContain(secret);
  });

  it("shows the display name the owner chose, and refuses one over 80 characters or with a NUL (nothing created)", async () => {
    const id = await conversationOf(owner.uid, [["Hi", "Hello."]]);
    const long = await post(
      `/api/conversations/${id}/share`,
      { intent: "create", displayName: "x".repeat(81) },
      ownerCookie,
    );
    expect(long.status).toBe(400);
    expect((await long.json()).error).toBe("Please keep the name to 80 characters or fewer.");
    const nul = await post(
      `/api/conversations/${id}/share`,
      { intent: "create", displayName: "a\u0000b" },
      ownerCookie,
    );
    expect(nul.status).toBe(400);
    expect((await nul.json()).error).toMatch(/cannot be stored/);
    const listed = await get(`/api/conversations/${id}/share`, ownerCookie);
    expect((await listed.json()).shares).toEqual([]);

    const link = await share(id, { displayName: "  Ana  " });
    expect(link.displayName).toBe("Ana");
    const html = await (await get(link.path)).text();
    expect(html).toContain("Shared by Ana");
  });

  it("is a snapshot: later messages in the conversation do not appear", async () => {
    const id = await conversationOf(owner.uid, [["First question", "First answer."]]);
    const link = await share(id);
    const db = await getDb();
    await saveExchange(db, {
      uid: owner.uid,
      conversationId: id,
      kind: "submit",
      user: { id: randomUUID(), text: "Later secret", sentAt: new Date() },
      reply: {
        id: randomUUID(),
        parts: [{ type: "text", text: "Later reply." }],
        content: "Later reply.",
        status: "completed",
        model: "demo",
        inputTokens: 1,
        outputTokens: 1,
      },
      usageDay: new Date().toISOString().slice(0, 10),
      title: "x",
    });
    const html = await (await get(link.path)).text();
    expect(html).toContain("First answer.");
    expect(html).not.toContain("Later secret");
  });

  it("another user's conversation cannot be shared (404), nor an unknown one; logged out goes to log in", async () => {
    const id = await conversationOf(owner.uid, [["Mine", "Yours."]]);
    expect((await post(`/api/conversations/${id}/share`, { intent: "create" }, visitorCookie)).status).toBe(404);
    expect((await get(`/api/conversations/${id}/share`, visitorCookie)).status).toBe(404);
    expect((await post(`/api/conversations/${randomUUID()}/share`, { intent: "create" }, ownerCookie)).status).toBe(
      404,
    );
    const anon = await post(`/api/conversations/${id}/share`, { intent: "create" });
    expect(anon.status).toBe(302);
    expect(anon.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
  });

  it("revoking is at once: the link is a 404 (still noindex) and leaves the dashboard; another user cannot revoke it", async () => {
    const id = await conversationOf(owner.uid, [["Revoke me", "Sure."]], "Revocable chat");
    const link = await share(id);
    const dashboard = await (await get("/dashboard", ownerCookie)).text();
    expect(dashboard).toContain("Shared links");
    expect(dashboard).toContain(`href="${link.path}"`);

    expect((await post(`/api/shares/${link.id}`, { intent: "revoke" }, visitorCookie)).status).toBe(404);
    expect((await get(link.path)).status).toBe(200);

    const revoked = await post(`/api/shares/${link.id}`, { intent: "revoke" }, ownerCookie);
    expect(revoked.status).toBe(200);
    const gone = await get(link.path);
    expect(gone.status).toBe(404);
    expect(gone.headers.get("X-Robots-Tag")).toBe("noindex");
    expect(await gone.text()).toContain("no longer shared");
    expect(await (await get("/dashboard", ownerCookie)).text()).not.toContain(`href="${link.path}"`);
    // Revoking twice: nothing left to revoke.
    expect((await post(`/api/shares/${link.id}`, { intent: "revoke" }, ownerCookie)).status).toBe(404);
  });

  it("a signed-in visitor continues it as a new conversation of their own, with the messages, opened at /nuvara/<id>", async () => {
    const id = await conversationOf(owner.uid, [
      ["Question one", "Answer one."],
      ["Question two", "Answer two."],
    ]);
    const link = await share(id);
    const signedInPage = await (await get(link.path, visitorCookie)).text();
    expect(signedInPage).toContain("Continue this conversation");

    const response = await post(link.path, { intent: "continue" }, visitorCookie);
    expect(response.status).toBe(302);
    const location = response.headers.get("Location")!;
    expect(location).toMatch(/^\/nuvara\/[0-9a-f-]{36}$/);
    const copyId = location.split("/").pop()!;
    expect(copyId).not.toBe(id);

    const db = await getDb();
    const [copy] = await db
      .select()
      .from(conversations)
      .where(and(eq(conversations.id, copyId), eq(conversations.uid, visitor.uid)));
    expect(copy.title).toBe("Lisbon trip");
    const rows = await db.select().from(messages).where(eq(messages.conversationId, copyId)).orderBy(asc(messages.seq));
    expect(rows.map((row) => `${row.role}:${row.content}`)).toEqual([
      "user:Question one",
      "assistant:Answer one.",
      "user:Question two",
      "assistant:Answer two.",
    ]);
    const opened = await get(location, visitorCookie);
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain("Answer two.");
    // The owner's conversation is untouched.
    expect(await db.select().from(messages).where(eq(messages.conversationId, id))).toHaveLength(4);
  });

  it("a signed-out visitor who posts Continue is sent to log in and back to the link; a revoked link cannot be continued", async () => {
    const id = await conversationOf(owner.uid, [["Q", "A."]]);
    const link = await share(id);
    const anon = await post(link.path, { intent: "continue" });
    expect(anon.status).toBe(302);
    expect(anon.headers.get("Location")).toBe(`/login?redirectTo=${encodeURIComponent(link.path)}`);
    await post(`/api/shares/${link.id}`, { intent: "revoke" }, ownerCookie);
    expect((await post(link.path, { intent: "continue" }, visitorCookie)).status).toBe(404);
  });

  it("a conversation has at most 20 open links, even asked for 25 at once: the rest are refused saying to revoke one; revoking makes room", async () => {
    const sharer = await createAccount(firebase, { prefix: "copier" });
    const cookie = await sessionCookieFor(sharer);
    const id = await conversationOf(sharer.uid, [["Copy me", "Many times."]]);
    const responses = await Promise.all(
      Array.from({ length: 25 }, () => post(`/api/conversations/${id}/share`, { intent: "create" }, cookie)),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([
      ...Array(20).fill(201),
      ...Array(5).fill(409),
    ]);
    const refusal = (await responses.find((response) => response.status === 409)!.json()) as { error: string };
    expect(refusal.error).toBe(
      "This conversation already has 20 open share links. Revoke one (under Shared links on your dashboard) to make another.",
    );
    const listed = (await (await get(`/api/conversations/${id}/share`, cookie)).json()) as {
      shares: Array<{ id: string }>;
    };
    expect(listed.shares).toHaveLength(20);

    expect((await post(`/api/shares/${listed.shares[0].id}`, { intent: "revoke" }, cookie)).status).toBe(200);
    await share(id, {}, cookie);
    expect((await post(`/api/conversations/${id}/share`, { intent: "create" }, cookie)).status).toBe(409);
  });

  it("an account makes at most 30 links an hour: the next is a 429 saying when to try again; other accounts are not held up", async () => {
    const sharer = await createAccount(firebase, { prefix: "hurried" });
    const cookie = await sessionCookieFor(sharer);
    const first = await conversationOf(sharer.uid, [["One", "1."]]);
    const second = await conversationOf(sharer.uid, [["Two", "2."]]);
    // Within each conversation's 20 open links: only the rate limit can refuse.
    for (let i = 0; i < 30; i++) await share(i < 15 ? first : second, {}, cookie);
    const refused = await post(`/api/conversations/${first}/share`, { intent: "create" }, cookie);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^You've made a lot of share links in a short time\. Please try again in (\d+ (seconds|minutes)|a (second|minute))\.$/,
    );
    const listed = (await (await get(`/api/conversations/${first}/share`, cookie)).json()) as { shares: unknown[] };
    expect(listed.shares).toHaveLength(15);

    const other = await createAccount(firebase, { prefix: "patient" });
    await share(await conversationOf(other.uid, [["Mine", "Fine."]]), {}, await sessionCookieFor(other));
  });

  it("the account export holds the user's links with their snapshots", async () => {
    const sharer = await createAccount(firebase, { prefix: "exporter" });
    const cookie = await sessionCookieFor(sharer);
    const id = await conversationOf(sharer.uid, [["Export me", "Exported."]], "Exported chat");
    const link = await share(id, { displayName: "Exp" }, cookie);
    const data = await exportAccountData(await getDb(), await getAccountDetails(sharer.uid), {
      role: "none",
      plan: "Free",
    });
    expect(data.sharedLinks).toEqual([
      expect.objectContaining({
        id: link.id,
        conversationId: id,
        title: "Exported chat",
        displayName: "Exp",
        revokedAt: null,
        snapshot: [
          expect.objectContaining({ role: "user", content: "Export me" }),
          expect.objectContaining({ role: "assistant", content: "Exported." }),
        ],
      }),
    ]);
  });
});
