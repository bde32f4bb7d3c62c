import { getAttachmentFile } from "./attachments.server";
import { randomBytes, randomUUID } from "node:crypto";
import { and, asc, count, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { conversations, messages, sharedConversations } from "~/db/schema";
import { branchPath } from "~/conversation/branches";
import { writeForAccount } from "./account-lock.server";

/**
 * Share links (/s/<id>): a read-only copy of a conversation's messages as
 * they were when shared. The random id is the only key, so it carries 144
 * bits from the system's CSPRNG; nothing of the owner is kept beyond the
 * display name they chose to show (and their uid, to list and revoke).
 */

/** One message of a snapshot: what the public page renders, nothing more (no ids, models or token counts). */
export interface SnapshotMessage {
  role: "user" | "assistant";
  parts: unknown[];
  content: string;
}

export interface ShareSummary {
  id: string;
  conversationId: string | null;
  title: string;
  displayName: string | null;
  createdAt: Date;
  /** The files attached in it can be opened through the link. */
  includeFiles: boolean;
}

export interface PublicShare {
  id: string;
  title: string;
  displayName: string | null;
  createdAt: Date;
  messages: SnapshotMessage[];
}

/** 18 random bytes → 24 url-safe characters. */
export function newShareId(): string {
  return randomBytes(18).toString("base64url");
}

/** What a share id can look like; anything else names no share (and never reaches SQL). */
export function isShareId(id: string | undefined): id is string {
  return typeof id === "string" && /^[A-Za-z0-9_-]{22,64}$/.test(id);
}

const FALLBACK_TITLE = "Shared conversation";

/**
 * Each link is a full copy of the conversation: open links per conversation
 * are capped, so one conversation cannot be copied without end (revoking one
 * makes room). Creating links is also rate limited per account
 * (app/chat/share-pages.server.ts), which bounds the copies revoked links keep.
 */
export const OPEN_SHARES_PER_CONVERSATION = 20;

/** The conversation already has OPEN_SHARES_PER_CONVERSATION open links: nothing was created. */
export class TooManySharesError extends Error {
  constructor() {
    super(`a conversation has at most ${OPEN_SHARES_PER_CONVERSATION} open share links`);
  }
}

/**
 * Shares the user's conversation: copies the messages of the branch shown, in order. Null when the
 * user has no such conversation (another user's is indistinguishable) or it
 * holds no message yet; TooManySharesError when it has as many open links as it may.
 */
export async function createShare(
  db: Db,
  input: { uid: string; conversationId: string; displayName: string | null; includeFiles?: boolean },
): Promise<ShareSummary | null> {
  return writeForAccount(db, input.uid, async (tx) => {
    const [conversation] = await tx
      .select({ id: conversations.id, title: conversations.title, currentLeafId: conversations.currentLeafId })
      .from(conversations)
      .where(and(eq(conversations.id, input.conversationId), eq(conversations.uid, input.uid)))
      .limit(1)
      // Links of one conversation are made one at a time, so concurrent requests cannot pass the cap together.
      .for("update");
    if (!conversation) return null;
    const [open] = await tx
      .select({ count: count() })
      .from(sharedConversations)
      .where(and(eq(sharedConversations.conversationId, conversation.id), isNull(sharedConversations.revokedAt)));
    if (open.count >= OPEN_SHARES_PER_CONVERSATION) throw new TooManySharesError();
    const stored = await tx
      .select({
        id: messages.id,
        parentId: messages.parentId,
        role: messages.role,
        parts: messages.parts,
        content: messages.content,
      })
      .from(messages)
      .where(eq(messages.conversationId, conversation.id))
      .orderBy(asc(messages.seq));
    if (stored.length === 0) return null;
    // The branch shown, as the owner sees it (docs/decisions/069); other versions stay private.
    // Attached files and the passages quoted from them stay private (docs/decisions/071): the link shows the words only.
    const rows = branchPath(stored, conversation.currentLeafId).map(({ role, parts, content }) => ({
      role,
      parts: withoutMemories(input.includeFiles ? parts : withoutFiles(parts)),
      content,
    }));
    const [row] = await tx
      .insert(sharedConversations)
      .values({
        id: newShareId(),
        uid: input.uid,
        conversationId: conversation.id,
        title: conversation.title ?? FALLBACK_TITLE,
        displayName: input.displayName,
        snapshot: rows satisfies SnapshotMessage[],
        includeFiles: Boolean(input.includeFiles),
      })
      .returning();
    return summary(row);
  });
}

/** The user's links still open, newest first (for the dashboard and the Share dialog). */
export async function listShares(
  db: Db,
  uid: string,
  { conversationId }: { conversationId?: string } = {},
): Promise<ShareSummary[]> {
  const rows = await db
    .select()
    .from(sharedConversations)
    .where(
      and(
        eq(sharedConversations.uid, uid),
        isNull(sharedConversations.revokedAt),
        conversationId ? eq(sharedConversations.conversationId, conversationId) : undefined,
      ),
    )
    .orderBy(desc(sharedConversations.createdAt))
    .limit(200);
  return rows.map(summary);
}

/** Revokes the user's link at once; false when they have no such open link. */
export async function revokeShare(db: Db, uid: string, id: string): Promise<boolean> {
  if (!isShareId(id)) return false;
  const rows = await db
    .update(sharedConversations)
    .set({ revokedAt: new Date() })
    .where(and(eq(sharedConversations.id, id), eq(sharedConversations.uid, uid), isNull(sharedConversations.revokedAt)))
    .returning({ id: sharedConversations.id });
  return rows.length > 0;
}

/** The public snapshot; null when there is none or it was revoked. */
export async function getPublicShare(db: Db, id: string): Promise<PublicShare | null> {
  if (!isShareId(id)) return null;
  const [row] = await db
    .select()
    .from(sharedConversations)
    .where(and(eq(sharedConversations.id, id), isNull(sharedConversations.revokedAt)))
    .limit(1);
  if (!row) return null;
  return {
    id: row.id,
    title: row.title,
    displayName: row.displayName,
    createdAt: row.createdAt,
    messages: toSnapshot(row.snapshot),
  };
}

/**
 * Copies an open share into a new conversation of the visitor, messages in
 * order (they are theirs to continue from then on). Null when the link was
 * revoked or never existed.
 */
export async function copyShareToConversation(
  db: Db,
  uid: string,
  shareId: string,
): Promise<{ conversationId: string } | null> {
  const share = await getPublicShare(db, shareId);
  if (!share) return null;
  // Under the account's lock: nothing is created for an account deleted meanwhile (docs/decisions/045).
  // One branch: each message follows the one before it, and the last is the one shown.
  const ids = share.messages.map(() => randomUUID());
  return writeForAccount(db, uid, async (tx) => {
    const [conversation] = await tx
      .insert(conversations)
      .values({ id: randomUUID(), uid, title: share.title, currentLeafId: ids.at(-1) ?? null })
      .returning({ id: conversations.id });
    if (share.messages.length > 0) {
      // One INSERT in snapshot order: seq is assigned in the order of the rows (parent keys are checked at its end).
      await tx.insert(messages).values(
        share.messages.map((message, index) => ({
          id: ids[index],
          parentId: index > 0 ? ids[index - 1] : null,
          conversationId: conversation.id,
          role: message.role,
          // The copy is the visitor's: the owner's files stay the owner's (seen only through the link).
          parts: withoutFiles(message.parts),
          content: message.content,
          // A copied reply ended as shared: completed (its stop state is not part of the snapshot).
          status: message.role === "assistant" ? ("completed" as const) : null,
          completedAt: message.role === "assistant" ? new Date() : null,
        })),
      );
    }
    return { conversationId: conversation.id };
  });
}

function summary(row: typeof sharedConversations.$inferSelect): ShareSummary {
  return {
    id: row.id,
    conversationId: row.conversationId,
    title: row.title,
    displayName: row.displayName,
    createdAt: row.createdAt,
    includeFiles: row.includeFiles,
  };
}

/** The stored JSON, read defensively: a row that is not a message is left out rather than breaking the page. */
function toSnapshot(value: unknown[]): SnapshotMessage[] {
  return value.flatMap((item) => {
    if (!item || typeof item !== "object") return [];
    const { role, parts, content } = item as Record<string, unknown>;
    if ((role !== "user" && role !== "assistant") || typeof content !== "string") return [];
    return [{ role, parts: Array.isArray(parts) ? parts : [], content }];
  });
}

/** The memories a reply was given are the owner's (docs/decisions/103): a share never shows them. */
function withoutMemories(parts: unknown[]): unknown[] {
  return parts.filter((part) => (part as { type?: string }).type !== "data-memories");
}

function withoutFiles(parts: unknown[]): unknown[] {
  return parts.flatMap((part) => {
    const { type, data } = part as { type?: string; data?: { web?: unknown } };
    if (type === "data-attachment") return [];
    // The passages are the files' words; the pages found on the web are public and keep their numbers.
    if (type === "data-sources")
      return Array.isArray(data?.web) ? [{ ...(part as object), data: { passages: [], web: data.web } }] : [];
    return [part];
  });
}

/**
 * A file of an open share whose owner chose to include files: only one its
 * snapshot shows, read as its owner's (it is gone once they delete it).
 */
export async function getSharedFile(db: Db, shareId: string, attachmentId: string) {
  if (!isShareId(shareId)) return undefined;
  const [row] = await db
    .select({ uid: sharedConversations.uid, snapshot: sharedConversations.snapshot })
    .from(sharedConversations)
    .where(
      and(
        eq(sharedConversations.id, shareId),
        isNull(sharedConversations.revokedAt),
        eq(sharedConversations.includeFiles, true),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  const shown = toSnapshot(row.snapshot).some((message) =>
    message.parts.some((part) => {
      const file = part as { type?: unknown; data?: { id?: unknown } };
      return file.type === "data-attachment" && file.data?.id === attachmentId;
    }),
  );
  return shown ? getAttachmentFile(db, row.uid, attachmentId) : undefined;
}
