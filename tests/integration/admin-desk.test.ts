import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { createConversation, deleteConversation } from "~/data/conversations.server";
import { rateReply } from "~/data/feedback.server";
import { addContactMessage, addReport } from "~/data/inbox.server";
import { saveExchange } from "~/data/messages.server";
import { getDb } from "~/db/client.server";
import { adminAudit, inboxMessages, inboxReplies } from "~/db/schema";
import { action as messageAction, loader as messageLoader } from "~/routes/admin.messages_.$messageId";
import { loader as conversationLoader } from "~/routes/admin.messages_.$messageId_.conversation";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import type { TestAccount } from "../support/identity";
import { captureLogs } from "../support/log-capture";
import { get, postForm, respond, uniqueText } from "./admin-support";

/**
 * The admin desk (ADR 063): replies kept in a message's thread and emailed
 * through a real SMTP server (smtp-server, over TCP) when SMTP_URL is set;
 * the reported conversation opened read-only with an audit entry each time;
 * Previous / Next in the list's order and filters.
 */

const firebase = admin();
let adminAccount: TestAccount;
let adminCookie: string;
beforeAll(async () => {
  adminAccount = await createAccount(firebase, { role: "admin" });
  adminCookie = await sessionCookieFor(adminAccount);
});
afterAll(() => firebase.close());
afterEach(() => {
  delete process.env.SMTP_URL;
  resetConfig();
});

const visitor = (email: string) => ({ email, uid: null, name: null, role: "" });

async function open(id: string, search = "") {
  const response = await respond(messageLoader, get(`/admin/messages/${id}${search}`, adminCookie), { messageId: id });
  expect(response.status).toBe(200);
  return response.json();
}

function reply(id: string, text: string) {
  return respond(
    messageAction,
    postForm(`/admin/messages/${id}`, { intent: "reply", reply: text }, { cookie: adminCookie }),
    { messageId: id },
  );
}

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on a free port, keeping what it receives; with `refuse`, it rejects every message. */
async function smtpServer({ refuse = false } = {}) {
  const received: Received[] = [];
  const logins: Array<{ username?: string | null; password?: string | null }> = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username, password: auth.password });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (chunk: Buffer) => (raw += chunk.toString()));
      stream.on("end", () => {
        if (refuse) return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((to) => to.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return { received, logins, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("replying to a message", () => {
  it("without SMTP_URL the reply is kept in the thread, marked as not emailed, and the mailto link stays", async () => {
    const db = await getDb();
    const message = await addContactMessage(
      db,
      visitor("asker@example.com"),
      `Where is my invoice? ${uniqueText("q")}`,
    );
    const response = await reply(message.id, "It is under Dashboard → Billing.");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      replied: true,
      delivery: "stored",
      notice: expect.stringContaining("send it with the email link"),
    });

    const page = await open(message.id);
    expect(page.emailConfigured).toBe(false);
    expect(page.replies).toEqual([
      expect.objectContaining({
        authorEmail: adminAccount.email,
        body: "It is under Dashboard → Billing.",
        delivery: "stored",
        deliveryError: null,
      }),
    ]);
  });

  it("with SMTP_URL the reply goes to the sender through the SMTP server, with their message quoted, and the thread says so", async () => {
    const smtp = await smtpServer();
    try {
      // A password with characters a URL must encode: the server receives it decoded.
      process.env.SMTP_URL = `smtp://mailer:${encodeURIComponent("s3cret!@:")}@127.0.0.1:${smtp.port}?from=${encodeURIComponent("support@nuvara.test")}`;
      resetConfig();
      const db = await getDb();
      const marker = uniqueText("mail");
      const message = await addContactMessage(db, visitor("mailed@example.com"), `Can I export my chats?\n${marker}`);

      const response = await reply(message.id, `Yes: Dashboard → Export. ${marker}`);
      expect(await response.json()).toMatchObject({
        replied: true,
        delivery: "sent",
        notice: "Reply sent to mailed@example.com.",
      });

      expect(smtp.logins).toEqual([{ username: "mailer", password: "s3cret!@:" }]);
      expect(smtp.received).toHaveLength(1);
      const [mail] = smtp.received;
      expect(mail.from).toBe("support@nuvara.test");
      expect(mail.to).toEqual(["mailed@example.com"]);
      expect(mail.raw).toMatch(/^Subject: Re: your message$/m);
      expect(mail.raw).toMatch(new RegExp(`^Reply-To: ${adminAccount.email}$`, "m"));
      expect(mail.raw).toContain(`Yes: Dashboard =E2=86=92 Export. ${marker}`);
      expect(mail.raw).toContain(`> Can I export my chats?`);
      expect(mail.raw).toContain(`> ${marker}`);

      const page = await open(message.id);
      expect(page.emailConfigured).toBe(true);
      expect(page.replies).toEqual([expect.objectContaining({ delivery: "sent", deliveryError: null })]);
      const [row] = await db.select().from(inboxReplies).where(eq(inboxReplies.messageId, message.id));
      expect(row.sentAt).toBeInstanceOf(Date);
    } finally {
      await smtp.close();
    }
  });

  it("a mail server that refuses it: the reply is still kept, and the thread and the answer give the server's reason", async () => {
    const smtp = await smtpServer({ refuse: true });
    try {
      process.env.SMTP_URL = `smtp://mailer:hush-hush@127.0.0.1:${smtp.port}`;
      resetConfig();
      const db = await getDb();
      const message = await addContactMessage(db, visitor("bounced@example.com"), "Hello?");
      const logs = captureLogs();
      let outcome;
      try {
        outcome = await (await reply(message.id, "Hello back.")).json();
      } finally {
        logs.restore();
      }
      // The operator's log says which server failed and why, never the password.
      expect(logs.entries().filter((entry) => entry.msg === "sending an admin reply failed")).toEqual([
        expect.objectContaining({ level: 40, smtpHost: `127.0.0.1:${smtp.port}` }),
      ]);
      expect(logs.lines.join("\n")).not.toContain("hush-hush");
      expect(outcome).toMatchObject({ replied: true, delivery: "failed" });
      expect(outcome.error).toMatch(/^Reply saved, but the email could not be sent: .*Mailbox unavailable/);

      const page = await open(message.id);
      expect(page.replies).toEqual([
        expect.objectContaining({
          body: "Hello back.",
          delivery: "failed",
          deliveryError: expect.stringMatching(/Mailbox unavailable/),
        }),
      ]);
    } finally {
      await smtp.close();
    }
  });

  it("no mail server listening: failed, kept, and the page still answers", async () => {
    const smtp = await smtpServer();
    await smtp.close(); // a port nothing listens on any more
    process.env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
    resetConfig();
    const db = await getDb();
    const message = await addContactMessage(db, visitor("nobody-home@example.com"), "Anyone?");
    const logs = captureLogs();
    const outcome = await (await reply(message.id, "Yes.")).json().finally(() => logs.restore());
    expect(outcome).toMatchObject({ replied: true, delivery: "failed", error: expect.stringMatching(/ECONNREFUSED/) });
    expect((await open(message.id)).replies).toEqual([expect.objectContaining({ body: "Yes.", delivery: "failed" })]);
  });

  it("an empty or too long reply is refused with a message, gives back what was typed, and stores nothing", async () => {
    const db = await getDb();
    const message = await addContactMessage(db, visitor("short@example.com"), "Hi");
    const empty = await reply(message.id, "   ");
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ fieldErrors: { reply: "Write a reply first." }, reply: "   " });
    const long = "x".repeat(10_001);
    const tooLong = await reply(message.id, long);
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({
      fieldErrors: { reply: "A reply can be at most 10,000 characters." },
      reply: long,
    });
    expect((await open(message.id)).replies).toEqual([]);
  });

  it("a reply to a deleted or unknown message is a 404", async () => {
    const response = await reply(randomUUID(), "Hello");
    expect(response.status).toBe(404);
  });
});

/** A user's conversation with one exchange, and a report on its reply, as the app stores them. */
async function reportedExchange(user: TestAccount, replyText: string) {
  const db = await getDb();
  const conversation = await createConversation(db, { uid: user.uid, title: "Recipes" });
  const replyId = randomUUID();
  await saveExchange(db, {
    uid: user.uid,
    conversationId: conversation.id,
    kind: "submit",
    user: { id: randomUUID(), text: "How long to boil an egg?", sentAt: new Date() },
    reply: {
      id: replyId,
      parts: [{ type: "text", text: replyText }],
      content: replyText,
      status: "completed",
      model: "demo",
      inputTokens: 1,
      outputTokens: 1,
    },
    usageDay: new Date().toISOString().slice(0, 10),
    title: "Recipes",
  });
  const report = await addReport(
    db,
    { email: user.email, uid: user.uid, name: null, role: "" },
    {
      reason: "wrong",
      comment: "That is far too long.",
      exchange: {
        conversationId: conversation.id,
        messageId: replyId,
        userText: "How long to boil an egg?",
        assistantText: replyText,
      },
    },
  );
  return { db, conversationId: conversation.id, replyId, report };
}

describe("the reported conversation", () => {
  it("opens read-only for an admin, and each opening is written to the audit log and listed on the report", async () => {
    const user = await createAccount(firebase);
    const { db, conversationId, replyId, report } = await reportedExchange(user, "**Forty** minutes.");
    expect(await rateReply(db, user.uid, conversationId, replyId, -1)).toBe(true);

    const before = await open(report.id);
    expect(before.rating).toBe(-1);
    expect(before.openings).toEqual([]);

    const response = await respond(conversationLoader, get(`/admin/messages/${report.id}/conversation`, adminCookie), {
      messageId: report.id,
    });
    expect(response.status).toBe(200);
    const data = await response.json();
    expect(data).toMatchObject({ title: "Recipes", reporter: user.email, reportedReplyId: replyId });
    expect(data.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ["user", "How long to boil an egg?"],
      ["assistant", "**Forty** minutes."],
    ]);

    const entries = await db.select().from(adminAudit).where(eq(adminAudit.messageId, report.id));
    expect(entries).toEqual([
      expect.objectContaining({
        actorUid: adminAccount.uid,
        actorEmail: adminAccount.email,
        action: "conversation-opened",
        subjectUid: user.uid,
        conversationId,
      }),
    ]);
    const after = await open(report.id);
    expect(after.openings).toEqual([expect.objectContaining({ actorEmail: adminAccount.email })]);
  });

  it("a deleted conversation is a 404 that says so, and nothing is recorded as read", async () => {
    const user = await createAccount(firebase);
    const { db, conversationId, report } = await reportedExchange(user, "Ten minutes.");
    expect(await deleteConversation(db, user.uid, conversationId)).toBe(true);
    const response = await respond(conversationLoader, get(`/admin/messages/${report.id}/conversation`, adminCookie), {
      messageId: report.id,
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: "The user has deleted this conversation. The report keeps the exchange they reported.",
    });
    expect(await db.select().from(adminAudit).where(eq(adminAudit.messageId, report.id))).toEqual([]);
  });

  it("a contact message has no conversation (404), and a non-admin gets 403 with nothing recorded", async () => {
    const db = await getDb();
    const contact = await addContactMessage(db, visitor("plain@example.com"), "Hi");
    const response = await respond(conversationLoader, get(`/admin/messages/${contact.id}/conversation`, adminCookie), {
      messageId: contact.id,
    });
    expect(response.status).toBe(404);

    const user = await createAccount(firebase);
    const { report } = await reportedExchange(user, "Five minutes.");
    const userCookie = await sessionCookieFor(user);
    const refused = await respond(conversationLoader, get(`/admin/messages/${report.id}/conversation`, userCookie), {
      messageId: report.id,
    });
    expect(refused.status).toBe(403);
    expect(await db.select().from(adminAudit).where(eq(adminAudit.messageId, report.id))).toEqual([]);
  });
});

describe("Previous and Next on a message", () => {
  it("walk the list the admin came from: its order (newest first) and its filters", async () => {
    const db = await getDb();
    const tag = uniqueText("walk");
    const first = await addContactMessage(db, visitor("a@example.com"), `${tag} one`);
    const report = await addReport(
      db,
      { email: "r@example.com", uid: "uid-walk", name: null, role: "" },
      {
        reason: "other",
        comment: `${tag} two`,
        exchange: { conversationId: null, messageId: randomUUID(), userText: "q", assistantText: "a" },
      },
    );
    const third = await addContactMessage(db, visitor("c@example.com"), `${tag} three`);
    // Inserts in one millisecond can share a timestamp (then the id decides): a second apart each.
    for (const [i, m] of [first, report, third].entries()) {
      await db
        .update(inboxMessages)
        .set({ createdAt: new Date(Date.now() - (10 - i) * 1000) })
        .where(eq(inboxMessages.id, m.id));
    }

    // All kinds: third, report, first.
    const middle = await open(report.id, `?q=${tag}`);
    expect(middle.previous).toBe(`/admin/messages/${third.id}?q=${tag}`);
    expect(middle.next).toBe(`/admin/messages/${first.id}?q=${tag}`);
    expect(middle.back).toBe(`/admin/messages?q=${tag}`);
    const newest = await open(third.id, `?q=${tag}`);
    expect(newest.previous).toBeUndefined();
    expect(newest.next).toBe(`/admin/messages/${report.id}?q=${tag}`);

    // Contact only: the report is skipped.
    const filtered = await open(third.id, `?kind=contact&q=${tag}`);
    expect(filtered.next).toBe(`/admin/messages/${first.id}?kind=contact&q=${tag}`);
  });
});
