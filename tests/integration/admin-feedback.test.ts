import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConversation } from "~/data/conversations.server";
import { rateReply } from "~/data/feedback.server";
import { addReport } from "~/data/inbox.server";
import { saveExchange } from "~/data/messages.server";
import { getDb } from "~/db/client.server";
import { loader } from "~/routes/admin.feedback";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import type { TestAccount } from "../support/identity";
import { get, respond, uniqueText } from "./admin-support";

/**
 * The admin Feedback page's data: ratings filtered by rating and model from
 * the address, each reply as plain text, each rater by email (or as a
 * deleted account), and the audited way into a reported reply's conversation.
 */

const firebase = admin();
let adminCookie: string;
beforeAll(async () => {
  adminCookie = await sessionCookieFor(await createAccount(firebase, { role: "admin" }));
});
afterAll(() => firebase.close());

interface Row {
  messageId: string;
  rating: 1 | -1;
  model: string | null;
  excerpt: string;
  reportId: string | null;
  rater: { kind: string; email?: string };
}

async function page(search: string): Promise<{ rows: Row[]; models: string[]; problems: string[]; query: unknown }> {
  const response = await respond(loader, get(`/admin/feedback${search}`, adminCookie));
  expect(response.status).toBe(200);
  return response.json();
}

/** A stored exchange whose reply `user` rates. */
async function ratedReply(user: TestAccount, model: string, text: string, rating: 1 | -1) {
  const db = await getDb();
  const conversation = await createConversation(db, { uid: user.uid, title: "Prices" });
  const replyId: string = randomUUID();
  await saveExchange(db, {
    uid: user.uid,
    conversationId: conversation.id,
    kind: "submit",
    user: { id: randomUUID(), text: "What do three cost?", sentAt: new Date() },
    reply: {
      id: replyId,
      parts: [{ type: "text", text }],
      content: text,
      status: "completed",
      model,
      inputTokens: 1,
      outputTokens: 1,
    },
    usageDay: new Date().toISOString().slice(0, 10),
    title: "Prices",
  });
  expect(await rateReply(db, user.uid, conversation.id, replyId, rating)).toBe(true);
  return { db, conversationId: conversation.id, replyId };
}

describe("/admin/feedback", () => {
  it("filters by rating and model from the address, shows plain text and the rater's email", async () => {
    const modelA = uniqueText("model-a");
    const modelB = uniqueText("model-b");
    const user = await createAccount(firebase);
    const good = await ratedReply(
      user,
      modelA,
      "## Total\n\n**19.99 * 3** = 59.97, see [the list](https://x.example).",
      1,
    );
    const bad = await ratedReply(user, modelA, "It is *roughly* 60.", -1);
    const other = await ratedReply(user, modelB, "Another answer.", -1);

    const all = await page("");
    expect(all.models).toEqual(expect.arrayContaining([modelA, modelB]));
    const mine = all.rows.filter((row) => [good.replyId, bad.replyId, other.replyId].includes(row.messageId));
    expect(mine).toHaveLength(3);
    expect(mine.find((row) => row.messageId === good.replyId)).toMatchObject({
      rating: 1,
      model: modelA,
      excerpt: "Total 19.99 * 3 = 59.97, see the list.",
      rater: { kind: "email", email: user.email },
      reportId: null,
    });

    const downA = await page(`?rating=down&model=${encodeURIComponent(modelA)}`);
    expect(downA.query).toEqual({ rating: "down", model: modelA });
    expect(downA.rows.map((row) => row.messageId)).toEqual([bad.replyId]);
    expect(downA.rows[0].excerpt).toBe("It is roughly 60.");

    const upB = await page(`?rating=up&model=${encodeURIComponent(modelB)}`);
    expect(upB.rows).toEqual([]);
    expect(upB.problems).toEqual([]);
  });

  it("says what in the address it could not use, and shows the rest", async () => {
    const model = uniqueText("model-c");
    const user = await createAccount(firebase);
    const { replyId } = await ratedReply(user, model, "Fine.", 1);
    const result = await page(`?rating=sideways&model=${encodeURIComponent(model)}`);
    expect(result.problems).toEqual(['"sideways" is not a rating; showing every rating.']);
    expect(result.query).toEqual({ rating: "all", model });
    expect(result.rows.map((row) => row.messageId)).toEqual([replyId]);
  });

  it("names a deleted account as such, and links a reported reply to its audited conversation", async () => {
    const model = uniqueText("model-d");
    const user = await createAccount(firebase);
    const { db, conversationId, replyId } = await ratedReply(user, model, "Forty minutes.", -1);
    const report = await addReport(
      db,
      { email: user.email, uid: user.uid, name: null, role: "" },
      {
        reason: "wrong",
        comment: "Too long.",
        exchange: { conversationId, messageId: replyId, userText: "q", assistantText: "Forty minutes." },
      },
    );
    const gone = await createAccount(firebase);
    const unreported = await ratedReply(gone, model, "Something else.", -1);
    await firebase.auth.deleteUser(gone.uid);

    const { rows } = await page(`?model=${encodeURIComponent(model)}`);
    expect(rows.find((row) => row.messageId === replyId)).toMatchObject({
      reportId: report.id,
      rater: { kind: "email", email: user.email },
    });
    expect(rows.find((row) => row.messageId === unreported.replyId)).toMatchObject({
      reportId: null,
      rater: { kind: "deleted" },
    });
  });

  it("is for admins only", async () => {
    const cookie = await sessionCookieFor(await createAccount(firebase));
    const response = await respond(loader, get("/admin/feedback", cookie));
    expect(response.status).toBe(403);
  });
});
