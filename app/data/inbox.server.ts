import { and, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { getDb } from "~/db/client.server";
import {
  conversations,
  inboxMessages,
  messages,
  type InboxKind,
  type InboxMessage,
  type InboxStatus,
  type ReportedExchange,
  type ReportReason,
} from "~/db/schema";
import { logBackendFault, logBackendRecovered, withDeadline } from "~/deadline.server";
import { writeForAccount, type Tx } from "./account-lock.server";
import { isUuid } from "~/ids/uuid";

/**
 * The admin inbox in PostgreSQL: contact messages and reports on assistant
 * replies, listed newest first with keyset pagination (created_at, id), so a
 * page costs the same however deep it is and a message arriving meanwhile
 * never shifts the next page.
 */

export const INBOX_PAGE_SIZE = 25;

/** Who wrote: a signed-in user (identity from the session) or a visitor (typed email). */
export interface Sender {
  email: string;
  uid: string | null;
  name: string | null;
  role: string;
  /**
   * Whether a signed-in sender's address was verified when they wrote; null
   * for a visitor, whose typed address proves nothing (ADR 049).
   * Left out: not recorded, which the inbox never presents as verified.
   */
  verified?: boolean | null;
}

function senderColumns(sender: Sender) {
  return {
    senderEmail: sender.email,
    senderUid: sender.uid,
    senderName: sender.name,
    senderRole: sender.role,
    senderVerified: sender.uid === null ? null : (sender.verified ?? null),
  };
}

/**
 * A signed-in sender's message is written under their account's lock, so it
 * cannot outlive a deletion in progress (AccountDeletedError, docs/decisions/045).
 */
async function insertMessage(
  db: Db,
  sender: Sender,
  values: Omit<typeof inboxMessages.$inferInsert, keyof ReturnType<typeof senderColumns>>,
) {
  const insert = (target: Db | Tx) =>
    target
      .insert(inboxMessages)
      .values({ ...values, ...senderColumns(sender) })
      .returning();
  const [row] = sender.uid ? await writeForAccount(db, sender.uid, insert) : await insert(db);
  forgetNewMessageCount();
  return row;
}

export async function addContactMessage(db: Db, sender: Sender, body: string): Promise<InboxMessage> {
  return insertMessage(db, sender, { kind: "contact", body });
}

export async function addReport(
  db: Db,
  sender: Sender,
  report: { reason: ReportReason; comment: string; exchange: ReportedExchange },
): Promise<InboxMessage> {
  return insertMessage(db, sender, {
    kind: "report",
    body: report.comment,
    reportReason: report.reason,
    exchange: report.exchange,
  });
}

/**
 * The exchange a user reports: their assistant reply `messageId` and the
 * user message before it, read from their own conversation only (another
 * user's message is as unknown as a missing one). Undefined when not found.
 */
export async function findReportedExchange(
  db: Db,
  uid: string,
  messageId: string,
): Promise<ReportedExchange | undefined> {
  if (!isUuid(messageId)) return undefined;
  const [reply] = await db
    .select({ conversationId: messages.conversationId, parentId: messages.parentId, content: messages.content })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(and(eq(messages.id, messageId), eq(messages.role, "assistant"), eq(conversations.uid, uid)));
  if (!reply) return undefined;
  // The message a reply answers is its parent: with branches (docs/decisions/069), not the one before it by seq.
  const [question] = reply.parentId
    ? await db
        .select({ content: messages.content, parts: messages.parts })
        .from(messages)
        .where(and(eq(messages.id, reply.parentId), eq(messages.conversationId, reply.conversationId)))
        .limit(1)
    : [];
  const attachmentNames = (question?.parts ?? []).flatMap((part) => {
    const file = part as { type?: string; data?: { name?: unknown } };
    return file.type === "data-attachment" && typeof file.data?.name === "string" ? [file.data.name] : [];
  });
  return {
    conversationId: reply.conversationId,
    messageId,
    userText: question?.content ?? "",
    assistantText: reply.content,
    ...(attachmentNames.length > 0 ? { attachmentNames } : {}),
  };
}

/** "inbox" is the default view: everything not archived. */
export type StatusFilter = InboxStatus | "inbox" | "all";

export interface InboxQuery {
  status: StatusFilter;
  kind?: InboxKind;
  q?: string;
  /** Older than this cursor (the next page)… */
  after?: string;
  /** …or newer than this one (the previous page). */
  before?: string;
}

export interface InboxPage {
  messages: InboxMessage[];
  /** Cursor of the last row when older rows exist. */
  older: string | null;
  /** Cursor of the first row when newer rows exist. */
  newer: string | null;
}

interface Position {
  createdAt: string;
  id: string;
}

// The cursor carries created_at as PostgreSQL's own text (microseconds):
// a JS Date would round it to milliseconds and skip or repeat rows.
export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.createdAt}|${position.id}`).toString("base64url");
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** Undefined for anything that is not a cursor this module made. */
export function decodeCursor(cursor: string): Position | undefined {
  const [createdAt, id, extra] = Buffer.from(cursor, "base64url").toString().split("|");
  if (extra !== undefined || !createdAt || !id || !TIMESTAMP.test(createdAt) || !isUuid(id)) return undefined;
  return { createdAt, id };
}

const createdAtText = sql<string>`to_char(${inboxMessages.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

// The same expression as the GIN index in schema/inbox.ts, so the index serves it.
const searchDocument = sql`to_tsvector('simple', ${inboxMessages.senderEmail} || ' ' || coalesce(${inboxMessages.senderName}, '') || ' ' || ${inboxMessages.body})`;

function escapeLike(text: string) {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function filters(query: InboxQuery): SQL[] {
  const where: SQL[] = [];
  if (query.status === "inbox") where.push(sql`${inboxMessages.status} <> 'archived'`);
  else if (query.status !== "all") where.push(eq(inboxMessages.status, query.status));
  if (query.kind) where.push(eq(inboxMessages.kind, query.kind));
  const q = query.q?.trim();
  if (q) where.push(inboxSearch(q));
  return where;
}

/**
 * Words anywhere in the text or sender, or part of an address ("alice" finds
 * alice@example.com, which the parser keeps as one token). Each of the three
 * has its index (app/db/schema/inbox.ts; the two `ilike`s through trigrams,
 * docs/decisions/102): PostgreSQL reads their union, not every row.
 */
export function inboxSearch(q: string): SQL {
  const pattern = `%${escapeLike(q)}%`;
  return or(
    sql`${searchDocument} @@ plainto_tsquery('simple', ${q})`,
    sql`${inboxMessages.senderEmail} ilike ${pattern}`,
    sql`${inboxMessages.senderName} ilike ${pattern}`,
  )!;
}

export async function listInbox(db: Db, query: InboxQuery): Promise<InboxPage> {
  const where = filters(query);
  const cursor = query.before ? decodeCursor(query.before) : query.after ? decodeCursor(query.after) : undefined;
  const backwards = Boolean(query.before && cursor);
  if (cursor) {
    const position = sql`(${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`;
    where.push(
      backwards
        ? sql`(${inboxMessages.createdAt}, ${inboxMessages.id}) > ${position}`
        : sql`(${inboxMessages.createdAt}, ${inboxMessages.id}) < ${position}`,
    );
  }
  // One row more than a page tells whether another page exists beyond it.
  const rows = await db
    .select({ message: inboxMessages, createdAtText })
    .from(inboxMessages)
    .where(and(...where))
    .orderBy(
      ...(backwards
        ? [inboxMessages.createdAt, inboxMessages.id]
        : [desc(inboxMessages.createdAt), desc(inboxMessages.id)]),
    )
    .limit(INBOX_PAGE_SIZE + 1);

  const more = rows.length > INBOX_PAGE_SIZE;
  // Back at the newest rows: show a full first page rather than a short one.
  if (backwards && !more) return listInbox(db, { ...query, before: undefined, after: undefined });
  const page = rows.slice(0, INBOX_PAGE_SIZE);
  if (backwards) page.reverse();
  const first = page[0];
  const last = page[page.length - 1];
  const at = (row: (typeof rows)[number]) => encodeCursor({ createdAt: row.createdAtText, id: row.message.id });
  return {
    messages: page.map((row) => row.message),
    // Going back, rows beyond the page are newer; going forward, older.
    // The other direction has rows whenever we came from a cursor.
    older: last && (backwards ? true : more) ? at(last) : null,
    newer: first && (backwards ? more : Boolean(cursor)) ? at(first) : null,
  };
}

/**
 * The messages before and after `id` in the list as the admin sees it (same
 * filters, newest first): `previous` is the newer one, `next` the older one,
 * so j/k on a message walk the list in its order. Undefined ids when none.
 */
export async function inboxNeighbours(
  db: Db,
  query: Omit<InboxQuery, "after" | "before">,
  id: string,
): Promise<{ previous?: string; next?: string }> {
  if (!isUuid(id)) return {};
  const position = sql`((select ${inboxMessages.createdAt} from ${inboxMessages} where ${inboxMessages.id} = ${id}::uuid), ${id}::uuid)`;
  const pair = sql`(${inboxMessages.createdAt}, ${inboxMessages.id})`;
  const one = (newer: boolean) =>
    db
      .select({ id: inboxMessages.id })
      .from(inboxMessages)
      .where(and(...filters(query), newer ? sql`${pair} > ${position}` : sql`${pair} < ${position}`))
      .orderBy(
        ...(newer
          ? [inboxMessages.createdAt, inboxMessages.id]
          : [desc(inboxMessages.createdAt), desc(inboxMessages.id)]),
      )
      .limit(1);
  const [[previous], [next]] = await Promise.all([one(true), one(false)]);
  return { previous: previous?.id, next: next?.id };
}

export async function getInboxMessage(db: Db, id: string): Promise<InboxMessage | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db.select().from(inboxMessages).where(eq(inboxMessages.id, id));
  return row;
}

/** Returns how many messages changed. */
export async function setInboxStatus(db: Db, ids: string[], status: InboxStatus): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db
    .update(inboxMessages)
    .set({ status })
    .where(inArray(inboxMessages.id, ids))
    .returning({ id: inboxMessages.id });
  forgetNewMessageCount();
  return rows.length;
}

/** Opening a new message marks it read; read and archived ones keep their status. */
export async function markOpened(db: Db, id: string): Promise<void> {
  await db
    .update(inboxMessages)
    .set({ status: "read" })
    .where(and(eq(inboxMessages.id, id), eq(inboxMessages.status, "new")));
  forgetNewMessageCount();
}

export async function deleteInboxMessages(db: Db, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db.delete(inboxMessages).where(inArray(inboxMessages.id, ids)).returning({ id: inboxMessages.id });
  forgetNewMessageCount();
  return rows.length;
}

export async function countNewMessages(db: Db): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(inboxMessages)
    .where(eq(inboxMessages.status, "new"));
  return row.count;
}

/**
 * The badge count is kept for a few seconds per instance: the root loader
 * asks for it on every signed-in page, alongside the session check (before
 * it knows whether the visitor is an admin), so it must be cheap. Changes
 * made on this instance forget it at once.
 */
const BADGE_TTL_MS = 5_000;
let badgeCount: { value: number; at: number } | undefined;

function forgetNewMessageCount() {
  badgeCount = undefined;
}

/**
 * The nav badge's count. A fault must never break the page around it: no
 * answer within the deadline shows no badge.
 */
export async function newMessageCountForNav(): Promise<number | null> {
  if (badgeCount && Date.now() - badgeCount.at < BADGE_TTL_MS) return badgeCount.value;
  try {
    const count = await withDeadline(
      "postgres",
      getConfig().backendTimeoutMs,
      getDb().then((db) => countNewMessages(db)),
    );
    logBackendRecovered("postgres");
    badgeCount = { value: count, at: Date.now() };
    return count;
  } catch (error) {
    logBackendFault("postgres", "counting new admin messages", error);
    return null;
  }
}
