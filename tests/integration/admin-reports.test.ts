import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

Object.assign(process.env, { REPORT_RATE_LIMIT_PER_ACCOUNT: "4" });

import { createConversation, deleteConversation } from "~/data/conversations.server";
import { saveExchange } from "~/data/messages.server";
import { getDb } from "~/db/client.server";
import { rateLimits } from "~/db/schema";
import { action as messagesAction, loader as messagesLoader } from "~/routes/admin.messages";
import { loader as messageLoader } from "~/routes/admin.messages_.$messageId";
import { action as reportAction } from "~/routes/api.reports";
import { admin, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import type { TestAccount } from "../support/identity";
import { get, postForm, postJson, respond, uniqueText } from "./admin-support";
import { captureLogs } from "../support/log-capture";

const firebase = admin();
afterAll(async () => {
  delete process.env.REPORT_RATE_LIMIT_PER_ACCOUNT;
  await firebase.close();
});

let reporter: TestAccount;
let reporterCookie: string;
let adminCookie: string;
beforeAll(async () => {
  reporter = await createAccount(firebase, { role: "premium", displayName: "Remy Reporter" });
  reporterCookie = await sessionCookieFor(reporter);
  adminCookie = await sessionCookieFor(await createAccount(firebase, { role: "admin" }));
});

/** A conversation with two exchanges, stored as the assistant stores them; returns the reply ids. */
async function conversationOf(uid: string, marker: string) {
  const db = await getDb();
  const conversation = await createConversation(db, { uid, title: "Maths" });
  const replies: string[] = [];
  for (const [question, answer] of [
    [`What is 2+2? ${marker}`, "4"],
    [`And 3+3? ${marker}`, `7 ${marker}`],
  ]) {
    const replyId = randomUUID();
    await saveExchange(db, {
      uid,
      conversationId: conversation.id,
      kind: "submit",
      user: { id: randomUUID(), text: question, sentAt: new Date() },
      reply: {
        id: replyId,
        parts: [{ type: "text", text: answer }],
        content: answer,
        status: "completed",
        model: "demo",
        inputTokens: 1,
        outputTokens: 1,
      },
      usageDay: new Date().toISOString().slice(0, 10),
      title: "Maths",
    });
    replies.push(replyId);
  }
  return { conversationId: conversation.id, replies };
}

const report = (fields: Record<string, string>, cookie = reporterCookie) =>
  respond(reportAction, postJson("/api/reports", fields, { cookie }));

describe("POST /api/reports", () => {
  it("a report on a reply arrives in the inbox with the exchange, and survives the conversation's deletion", async () => {
    const marker = uniqueText("reported");
    const { conversationId, replies } = await conversationOf(reporter.uid, marker);
    const response = await report({ messageId: replies[1], reason: "wrong", comment: `Should be 6 ${marker}` });
    expect(response.status).toBe(201);
    const { id } = await response.json();

    const db = await getDb();
    expect(await deleteConversation(db, reporter.uid, conversationId)).toBe(true);

    const list = await (
      await respond(messagesLoader, get(`/admin/messages?kind=report&q=${marker}`, adminCookie))
    ).json();
    expect(list.page.messages.map((m: { id: string }) => m.id)).toEqual([id]);
    const { message } = await (
      await respond(messageLoader, get(`/admin/messages/${id}`, adminCookie), { messageId: id })
    ).json();
    expect(message).toMatchObject({
      kind: "report",
      reportReason: "wrong",
      body: `Should be 6 ${marker}`,
      senderEmail: reporter.email,
      senderName: "Remy Reporter",
      senderRole: "premium",
      exchange: { conversationId, messageId: replies[1], userText: `And 3+3? ${marker}`, assistantText: `7 ${marker}` },
    });
  });

  it("a form post works too, and the comment may be empty", async () => {
    const { replies } = await conversationOf(reporter.uid, uniqueText("form"));
    const response = await respond(
      reportAction,
      postForm("/api/reports", { messageId: replies[0], reason: "harmful" }, { cookie: reporterCookie }),
    );
    expect(response.status).toBe(201);
  });

  it("only the reporter's own replies: another user's reply or an unknown id → 404", async () => {
    const other = await createAccount(firebase);
    const { replies } = await conversationOf(other.uid, uniqueText("theirs"));
    expect((await report({ messageId: replies[0], reason: "other" })).status).toBe(404);
    expect((await report({ messageId: randomUUID(), reason: "other" })).status).toBe(404);
  });

  it("logged out → 401; cross-origin → 403; bad input → 400 with field errors", async () => {
    const { replies } = await conversationOf(reporter.uid, uniqueText("guard"));
    expect((await report({ messageId: replies[0], reason: "wrong" }, "")).status).toBe(401);
    const cross = appRequest("/api/reports", {
      method: "POST",
      cookie: reporterCookie,
      headers: { Origin: "https://evil.example", "Content-Type": "application/json" },
      body: JSON.stringify({ messageId: replies[0], reason: "wrong" }),
    });
    expect((await respond(reportAction, cross)).status).toBe(403);
    const cases: Array<[Record<string, string>, string]> = [
      [{ reason: "wrong" }, "messageId"],
      [{ messageId: "../etc", reason: "wrong" }, "messageId"],
      [{ messageId: replies[0], reason: "boring" }, "reason"],
      [{ messageId: replies[0], reason: "other", comment: "x".repeat(2_001) }, "comment"],
    ];
    for (const [fields, field] of cases) {
      const response = await report(fields);
      expect(response.status).toBe(400);
      expect((await response.json()).fieldErrors[field]).toEqual(expect.any(String));
    }
  });

  it("a NUL byte or a broken Unicode character in the comment → 400 saying so, nothing logged as a fault", async () => {
    const { replies } = await conversationOf(reporter.uid, uniqueText("nul"));
    // Fault lines go to the app's logger (ADR 052): none at error level.
    const logs = captureLogs();
    try {
      for (const comment of ["a\u0000b", "a\ud800b"]) {
        const response = await report({ messageId: replies[0], reason: "other", comment });
        expect(response.status).toBe(400);
        expect((await response.json()).fieldErrors.comment).toMatch(/cannot be stored/);
      }
      expect(logs.entries().filter((entry) => entry.level >= 50)).toEqual([]);
    } finally {
      logs.restore();
    }
  });

  it("rate limit per account: 429 with Retry-After", async () => {
    const db = await getDb();
    await db.delete(rateLimits).where(sql`${rateLimits.key} = ${`report:uid:${reporter.uid}`}`);
    const { replies } = await conversationOf(reporter.uid, uniqueText("limit"));
    for (let i = 0; i < 4; i++) expect((await report({ messageId: replies[0], reason: "other" })).status).toBe(201);
    const limited = await report({ messageId: replies[0], reason: "other" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await limited.json()).error).toMatch(/reports in a short time/);
  });

  it("admins act on reports like any message", async () => {
    const marker = uniqueText("act");
    const db = await getDb();
    await db.delete(rateLimits).where(sql`${rateLimits.key} = ${`report:uid:${reporter.uid}`}`);
    const { replies } = await conversationOf(reporter.uid, marker);
    const { id } = await (await report({ messageId: replies[0], reason: "harmful", comment: marker })).json();
    const archived = await respond(
      messagesAction,
      postForm("/admin/messages", { intent: "archive", ids: id }, { cookie: adminCookie }),
    );
    expect(await archived.json()).toMatchObject({ count: 1 });
    const list = await (
      await respond(messagesLoader, get(`/admin/messages?status=archived&kind=report&q=${marker}`, adminCookie))
    ).json();
    expect(list.page.messages).toHaveLength(1);
  });
});
