import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addContactMessage,
  addReport,
  countNewMessages,
  decodeCursor,
  encodeCursor,
  INBOX_PAGE_SIZE,
  inboxSearch,
} from "~/data/inbox.server";
import { getDb } from "~/db/client.server";
import { inboxMessages } from "~/db/schema";
import { loader as rootLoader } from "~/root";
import { action as contactAction } from "~/routes/api.contact";
import { action as messagesAction, loader as messagesLoader } from "~/routes/admin.messages";
import { action as messageAction, loader as messageLoader } from "~/routes/admin.messages_.$messageId";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { appHandler } from "../support/remix-app";
import { get, postForm, respond, uniqueText } from "./admin-support";
import { visitorWork } from "../support/contact-work";

const firebase = admin();
afterAll(() => firebase.close());

let adminCookie: string;
beforeAll(async () => {
  adminCookie = await sessionCookieFor(await createAccount(firebase, { role: "admin" }));
});

interface ListedMessage {
  id: string;
  kind: string;
  status: string;
  senderEmail: string;
  senderRole: string;
  body: string;
}
interface ListData {
  page: { messages: ListedMessage[]; older: string | null; newer: string | null };
}

async function list(search: string): Promise<ListData> {
  const response = await respond(messagesLoader, get(`/admin/messages${search}`, adminCookie));
  expect(response.status).toBe(200);
  return response.json();
}

async function open(id: string, headers?: Record<string, string>) {
  return respond(messageLoader, get(`/admin/messages/${id}`, adminCookie, headers), { messageId: id });
}

const visitor = (email: string) => ({ email, uid: null, name: null, role: "" });

describe("messages reach the inbox", () => {
  it("a contact message from a visitor and one from a signed-in user, newest first, with the role at the time", async () => {
    const marker = uniqueText("arrive");
    const visitorResponse = await respond(
      contactAction,
      postForm("/api/contact", { email: "walk-in@example.com", message: `first ${marker}`, ...(await visitorWork()) }),
    );
    expect(visitorResponse.status).toBe(201);
    const member = await createAccount(firebase, { role: "premium" });
    const memberResponse = await respond(
      contactAction,
      postForm("/api/contact", { message: `second ${marker}` }, { cookie: await sessionCookieFor(member) }),
    );
    expect(memberResponse.status).toBe(201);

    const { page } = await list(`?q=${marker}`);
    expect(page.messages.map((m) => [m.senderEmail, m.senderRole, m.status, m.kind])).toEqual([
      [member.email, "premium", "new", "contact"],
      ["walk-in@example.com", "", "new", "contact"],
    ]);
  });

  it("a report arrives with its reason, comment and the reported exchange", async () => {
    const db = await getDb();
    const marker = uniqueText("report");
    const report = await addReport(
      db,
      { email: "reporter@example.com", uid: "uid-1", name: "Rita", role: "" },
      {
        reason: "wrong",
        comment: `The sum is off ${marker}`,
        exchange: { conversationId: "c1", messageId: "m2", userText: "What is 2+2?", assistantText: "5" },
      },
    );
    const { page } = await list(`?kind=report&q=${marker}`);
    expect(page.messages.map((m) => m.id)).toEqual([report.id]);

    const response = await open(report.id);
    const { message } = await response.json();
    expect(message).toMatchObject({
      kind: "report",
      reportReason: "wrong",
      body: `The sum is off ${marker}`,
      senderEmail: "reporter@example.com",
      exchange: { userText: "What is 2+2?", assistantText: "5" },
    });
  });
});

describe("who sent it", () => {
  /** The message page as the admin's browser receives it, rendered by the whole app. */
  async function page(path: string): Promise<string> {
    const handle = await appHandler();
    const response = await handle(
      get(path, adminCookie, { "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "navigate" }),
    );
    expect(response.status).toBe(200);
    // React puts comment markers between adjacent text pieces.
    return (await response.text()).replace(/<!-- -->/g, "");
  }

  it("an unverified account is not shown as an authenticated sender", async () => {
    const marker = uniqueText("claimed");
    const unverified = await createAccount(firebase, { verified: false, prefix: "ceo" });
    const posted = await respond(
      contactAction,
      postForm(
        "/api/contact",
        { message: `This is the CEO ${marker}` },
        { cookie: await sessionCookieFor(unverified) },
      ),
    );
    expect(posted.status).toBe(201);
    const [row] = (await list(`?q=${marker}`)).page.messages;
    const html = await page(`/admin/messages/${row.id}`);
    expect(html).toContain(unverified.email);
    expect(html).toContain("(logged in, address not verified)");
    expect(html).not.toMatch(/\(logged in\)/);
    expect(await page(`/admin/messages?q=${marker}`)).toContain("address not verified");
  });

  it("a verified account says so; a visitor's address is marked as typed", async () => {
    const marker = uniqueText("verified");
    const member = await createAccount(firebase);
    await respond(
      contactAction,
      postForm("/api/contact", { message: `member ${marker}` }, { cookie: await sessionCookieFor(member) }),
    );
    await respond(
      contactAction,
      postForm("/api/contact", { email: "typed@example.com", message: `visitor ${marker}`, ...(await visitorWork()) }),
    );
    const { messages } = (await list(`?q=${marker}`)).page;
    const fromMember = messages.find((m) => m.senderEmail === member.email)!;
    const fromVisitor = messages.find((m) => m.senderEmail === "typed@example.com")!;
    expect(await page(`/admin/messages/${fromMember.id}`)).toContain("(logged in, verified)");
    expect(await page(`/admin/messages/${fromVisitor.id}`)).toContain(
      "(logged out: the address was typed, not verified)",
    );
  });

  it("a message stored before verification was recorded does not claim it", async () => {
    const db = await getDb();
    const old = await addContactMessage(
      db,
      { email: "old@example.com", uid: "uid-old", name: null, role: "" },
      uniqueText("old"),
    );
    expect(old.senderVerified).toBeNull();
    const html = await page(`/admin/messages/${old.id}`);
    expect(html).toContain("(logged in, verification not recorded)");
    expect(html).not.toMatch(/\(logged in\)|logged in, verified/);
  });
});

describe("filters, search and pagination", () => {
  it("filters by status and kind; the default view hides archived messages", async () => {
    const db = await getDb();
    const marker = uniqueText("filter");
    const contactNew = await addContactMessage(db, visitor("a@example.com"), `new ${marker}`);
    const contactRead = await addContactMessage(db, visitor("b@example.com"), `read ${marker}`);
    const contactArchived = await addContactMessage(db, visitor("c@example.com"), `archived ${marker}`);
    const report = await addReport(db, visitor("d@example.com"), {
      reason: "harmful",
      comment: `report ${marker}`,
      exchange: { conversationId: null, messageId: "m", userText: "u", assistantText: "a" },
    });
    await db
      .update(inboxMessages)
      .set({ status: "read" })
      .where(inArray(inboxMessages.id, [contactRead.id]));
    await db
      .update(inboxMessages)
      .set({ status: "archived" })
      .where(inArray(inboxMessages.id, [contactArchived.id]));
    // Inserts in one millisecond can share a timestamp (then the id decides): a second apart each.
    for (const [i, m] of [contactNew, contactRead, contactArchived, report].entries()) {
      await db
        .update(inboxMessages)
        .set({ createdAt: new Date(Date.now() - (10 - i) * 1000) })
        .where(eq(inboxMessages.id, m.id));
    }

    const ids = async (search: string) => (await list(`?q=${marker}${search}`)).page.messages.map((m) => m.id);
    expect(await ids("")).toEqual([report.id, contactRead.id, contactNew.id]);
    expect(await ids("&status=new")).toEqual([report.id, contactNew.id]);
    expect(await ids("&status=read")).toEqual([contactRead.id]);
    expect(await ids("&status=archived")).toEqual([contactArchived.id]);
    expect(await ids("&status=all")).toEqual([report.id, contactArchived.id, contactRead.id, contactNew.id]);
    expect(await ids("&status=all&kind=contact")).toEqual([contactArchived.id, contactRead.id, contactNew.id]);
    expect(await ids("&status=all&kind=report")).toEqual([report.id]);
  });

  it("searches words in the text and the sender, including part of an address", async () => {
    const db = await getDb();
    const word = uniqueText("zebra").replace("-", "");
    const sender = `${uniqueText("sender")}@example.org`;
    const byText = await addContactMessage(db, visitor("someone@example.com"), `I saw a ${word} today`);
    const bySender = await addContactMessage(db, visitor(sender), "Nothing special here");
    const matches = async (q: string) =>
      (await list(`?status=all&q=${encodeURIComponent(q)}`)).page.messages.map((m) => m.id);
    expect(await matches(word)).toEqual([byText.id]);
    expect(await matches(`saw ${word}`)).toEqual([byText.id]);
    expect(await matches(sender)).toEqual([bySender.id]);
    expect(await matches(sender.split("@")[0])).toEqual([bySender.id]);
    expect(await matches(`${word}-nothing-like-this`)).toEqual([]);
    // LIKE wildcards are searched literally.
    expect(await matches("%")).not.toContain(byText.id);
  });

  it("a search reads each of its three conditions through an index (docs/decisions/102)", async () => {
    const db = await getDb();
    const query = db.select({ id: inboxMessages.id }).from(inboxMessages).where(inboxSearch("alice"));
    // With sequential scans priced out, the plan shows what the indexes can serve: all three, or it would scan.
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const { rows } = await tx.execute<{ "QUERY PLAN": string }>(sql`explain ${query}`);
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("BitmapOr");
    for (const index of [
      "inbox_messages_search_idx",
      "inbox_messages_sender_email_trgm_idx",
      "inbox_messages_sender_name_trgm_idx",
    ]) {
      expect(plan).toContain(index);
    }
  });

  it("pages of 25 past the first, older and newer, no row skipped or repeated", async () => {
    const db = await getDb();
    const marker = uniqueText("page");
    const created: string[] = [];
    for (let i = 0; i < 30; i++) {
      created.push((await addContactMessage(db, visitor(`p${i}@example.com`), `${marker} number ${i}`)).id);
      // PGlite's clock can give two quick inserts the same created_at; the order of such ties (by id) is not the order sent.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const newestFirst = [...created].reverse();

    const first = await list(`?q=${marker}`);
    expect(first.page.messages).toHaveLength(INBOX_PAGE_SIZE);
    expect(first.page.messages.map((m) => m.id)).toEqual(newestFirst.slice(0, 25));
    expect(first.page.newer).toBeNull();
    expect(first.page.older).not.toBeNull();

    const second = await list(`?q=${marker}&after=${first.page.older}`);
    expect(second.page.messages.map((m) => m.id)).toEqual(newestFirst.slice(25));
    expect(second.page.older).toBeNull();
    expect(second.page.newer).not.toBeNull();

    const back = await list(`?q=${marker}&before=${second.page.newer}`);
    expect(back.page.messages.map((m) => m.id)).toEqual(newestFirst.slice(0, 25));
  });

  it("cursors keep microseconds, and anything else is refused with 400", async () => {
    const cursor = encodeCursor({
      createdAt: "2030-01-02T03:04:05.123456Z",
      id: "0b7e3d1c-6f0a-4c41-9a5e-0d6c1f9b2a11",
    });
    expect(decodeCursor(cursor)).toEqual({
      createdAt: "2030-01-02T03:04:05.123456Z",
      id: "0b7e3d1c-6f0a-4c41-9a5e-0d6c1f9b2a11",
    });
    for (const search of [
      "?after=not-a-cursor",
      `?before=${Buffer.from("x|y").toString("base64url")}`,
      "?status=spam",
      "?kind=letter",
    ]) {
      const response = await respond(messagesLoader, get(`/admin/messages${search}`, adminCookie));
      expect(response.status).toBe(400);
    }
  });
});

describe("acting on messages", () => {
  it("opening a new message shows it in full and marks it read; a prefetch does not", async () => {
    const db = await getDb();
    const text = `Line one\nLine two <b>${uniqueText("full")}</b>`;
    const message = await addContactMessage(db, visitor("open@example.com"), text);

    const prefetch = await open(message.id, { "Sec-Fetch-Site": "same-origin", "Sec-Purpose": "prefetch" });
    expect((await prefetch.json()).message.status).toBe("new");

    const response = await open(message.id);
    const data = await response.json();
    expect(data.message).toMatchObject({ body: text, senderEmail: "open@example.com", status: "read" });
    expect((await open(message.id)).status).toBe(200);
    const [row] = await db
      .select()
      .from(inboxMessages)
      .where(inArray(inboxMessages.id, [message.id]));
    expect(row.status).toBe("read");

    expect((await open("00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await open("../../etc/passwd")).status).toBe(404);
  });

  it("bulk actions on a selection: mark read, mark unread, archive, move back", async () => {
    const db = await getDb();
    const marker = uniqueText("bulk");
    const a = await addContactMessage(db, visitor("a@example.com"), `${marker} a`);
    const b = await addContactMessage(db, visitor("b@example.com"), `${marker} b`);
    const c = await addContactMessage(db, visitor("c@example.com"), `${marker} c`);
    const act = async (intent: string, ids: string[]) => {
      const response = await respond(
        messagesAction,
        postForm("/admin/messages", { intent, ids }, { cookie: adminCookie }),
      );
      expect(response.status).toBe(200);
      return response.json();
    };
    const statuses = async () => {
      const rows = await db
        .select()
        .from(inboxMessages)
        .where(inArray(inboxMessages.id, [a.id, b.id, c.id]));
      return Object.fromEntries(rows.map((r) => [r.body.slice(-1), r.status]));
    };

    expect(await act("mark-read", [a.id, b.id])).toMatchObject({
      ok: true,
      count: 2,
      notice: "2 messages marked read.",
    });
    expect(await statuses()).toEqual({ a: "read", b: "read", c: "new" });
    await act("mark-unread", [a.id]);
    await act("archive", [b.id, c.id]);
    expect(await statuses()).toEqual({ a: "new", b: "archived", c: "archived" });
    await act("unarchive", [c.id]);
    expect(await statuses()).toEqual({ a: "new", b: "archived", c: "read" });
  });

  it("delete asks for confirmation first, then deletes the selection", async () => {
    const db = await getDb();
    const marker = uniqueText("delete");
    const a = await addContactMessage(db, visitor("a@example.com"), `${marker} a`);
    const b = await addContactMessage(db, visitor("b@example.com"), `${marker} b`);
    const keep = await addContactMessage(db, visitor("k@example.com"), `${marker} keep`);

    const ask = await respond(
      messagesAction,
      postForm("/admin/messages", { intent: "delete", ids: [a.id, b.id] }, { cookie: adminCookie }),
    );
    expect(await ask.json()).toEqual({ confirmDelete: [a.id, b.id] });
    expect((await list(`?q=${marker}`)).page.messages).toHaveLength(3);

    const done = await respond(
      messagesAction,
      postForm("/admin/messages", { intent: "delete", ids: [a.id, b.id], confirm: "yes" }, { cookie: adminCookie }),
    );
    expect(await done.json()).toMatchObject({ ok: true, count: 2 });
    expect((await list(`?q=${marker}`)).page.messages.map((m) => m.id)).toEqual([keep.id]);

    // One message, from its own page: confirmed, it is gone and the admin is back at the inbox.
    const single = await respond(
      messageAction,
      postForm(`/admin/messages/${keep.id}`, { intent: "delete", confirm: "yes" }, { cookie: adminCookie }),
      { messageId: keep.id },
    );
    expect(single.status).toBe(302);
    expect(single.headers.get("Location")).toBe("/admin/messages");
    expect((await open(keep.id)).status).toBe(404);
  });

  it("bad action input → 400 with field errors", async () => {
    const db = await getDb();
    const message = await addContactMessage(db, visitor("v@example.com"), uniqueText("validate"));
    const cases: Array<[Record<string, string | string[]>, string]> = [
      [{ intent: "mark-read" }, "ids"],
      [{ intent: "mark-read", ids: "not-a-uuid" }, "ids"],
      [{ intent: "explode", ids: message.id }, "intent"],
      [{ intent: "mark-read", ids: Array.from({ length: 101 }, () => message.id) }, "ids"],
    ];
    for (const [fields, field] of cases) {
      const response = await respond(messagesAction, postForm("/admin/messages", fields, { cookie: adminCookie }));
      expect(response.status).toBe(400);
      expect((await response.json()).fieldErrors[field]).toEqual(expect.any(String));
    }
  });
});

describe("the nav badge", () => {
  it("the root loader counts new messages for admins, and only for them", async () => {
    const db = await getDb();
    const root = async (cookie?: string) => (await respond(rootLoader, get("/", cookie))).json();

    const before = (await root(adminCookie)).newMessages;
    expect(before).toBe(await countNewMessages(db));
    const added = await addContactMessage(db, visitor("badge@example.com"), uniqueText("badge"));
    expect((await root(adminCookie)).newMessages).toBe(before + 1);
    await respond(
      messagesAction,
      postForm("/admin/messages", { intent: "mark-read", ids: added.id }, { cookie: adminCookie }),
    );
    expect((await root(adminCookie)).newMessages).toBe(before);

    const user = await sessionCookieFor(await createAccount(firebase, { role: "premium" }));
    expect((await root(user)).newMessages).toBeNull();
    expect((await root()).newMessages).toBeNull();
  });
});
