import { and, asc, eq, getTableName, inArray, isNull, or, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { UserRecord } from "firebase-admin/auth";
import { authCache } from "~/auth/auth-cache.server";
import { publishInvalidation } from "~/auth/invalidation.server";
import { DISPLAY_NAME_MAX } from "./display-name";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import {
  attachmentData,
  billingCustomers,
  billingSubscriptions,
  limitRefusals,
  attachments,
  mcpOauthPending,
  mcpOauthTokens,
  mcpServers,
  conversationFolders,
  projects,
  conversations,
  inboxMessages,
  messages,
  quotaReservations,
  replyRuns,
  usageDaily,
  messageFeedback,
  sharedConversations,
  userPreferences,
  userToolSettings,
  toolCalls,
  toolElicitations,
  apiKeys,
  chatToolAllowances,
  memories,
  pushSubscriptions,
  tabPresence,
  importJobs,
  importedConversations,
} from "~/db/schema";
import { withDeadline } from "~/deadline.server";
import { adminAuth } from "~/firebase.server";
import { deleteForAccount, type Tx } from "./account-lock.server";
import { deleteRoleRecord } from "~/auth/roles.server";
import { revocationsForAccount, revokeAll } from "./mcp-oauth.server";

/**
 * A user's account as a whole: what the identity service knows of them, and
 * everything of theirs the product stores, to export it or delete it.
 *
 * Every PostgreSQL table holding rows of one user is listed in USER_TABLES;
 * tests/integration/account-data.test.ts fails when a table with a uid
 * column is neither listed there nor in RETAINED_TABLES with a reason.
 */

function deadline<T>(backend: string, work: Promise<T>): Promise<T> {
  return withDeadline(backend, getConfig().backendTimeoutMs, work);
}

// ---- the session -------------------------------------------------------------------

/** Deleting the account needs a sign-in at most this old (the identity service's requires-recent-login, ADR 030). */
export const RECENT_SIGN_IN_SECONDS = 5 * 60;

export function isRecentSignIn(authTime: number, now = Date.now()): boolean {
  return now / 1000 - authTime <= RECENT_SIGN_IN_SECONDS;
}

// ---- the identity service ------------------------------------------------------

export interface SignInProvider {
  id: string;
  label: string;
}

export interface AccountDetails {
  uid: string;
  email: string | null;
  emailVerified: boolean;
  displayName: string | null;
  photoURL: string | null;
  providers: SignInProvider[];
  /** Whether the user can sign in with a password (and so change it). */
  hasPassword: boolean;
  /** ISO 8601, or null when the identity service does not say. */
  createdAt: string | null;
  lastSignInAt: string | null;
}

const PROVIDER_LABELS: Record<string, string> = {
  password: "Email and password",
  "google.com": "Google",
  "apple.com": "Apple",
  "github.com": "GitHub",
  "microsoft.com": "Microsoft",
  "facebook.com": "Facebook",
  "twitter.com": "X (Twitter)",
  phone: "Phone number",
  emailLink: "Email link",
};

function isoOrNull(time: string | undefined): string | null {
  if (!time) return null;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function details(record: UserRecord): AccountDetails {
  const providers = record.providerData.map(({ providerId }) => ({
    id: providerId,
    label: PROVIDER_LABELS[providerId] ?? providerId,
  }));
  return {
    uid: record.uid,
    email: record.email ?? null,
    emailVerified: record.emailVerified,
    displayName: record.displayName ?? null,
    photoURL: record.photoURL ?? null,
    providers,
    hasPassword: providers.some((provider) => provider.id === "password"),
    createdAt: isoOrNull(record.metadata.creationTime),
    lastSignInAt: isoOrNull(record.metadata.lastSignInTime),
  };
}

/** The identity service's record of the user (email, name, sign-in methods, dates), read fresh. */
export async function getAccountDetails(uid: string): Promise<AccountDetails> {
  return details(await deadline("identity", adminAuth().getUser(uid)));
}

const displayNameSchema = z.preprocess(
  (value) => (typeof value === "string" ? value.replace(/\s+/g, " ").trim() : ""),
  z
    .string()
    .min(1, "Enter a name.")
    .max(DISPLAY_NAME_MAX, `A name is at most ${DISPLAY_NAME_MAX} characters.`)
    // Shown as text everywhere, but markup in a name is never meant.
    // eslint-disable-next-line no-control-regex
    .refine((name) => !/[\u0000-\u001f\u007f<>]/.test(name), "A name cannot contain < > or control characters."),
);

/** A display name as typed: spaces tidied, then checked. */
export function parseDisplayName(typed: unknown): { success: true; name: string } | { success: false; error: string } {
  const parsed = displayNameSchema.safeParse(typed);
  return parsed.success
    ? { success: true, name: parsed.data }
    : { success: false, error: parsed.error.issues[0].message };
}

export async function setDisplayName(uid: string, email: string | null, displayName: string): Promise<void> {
  await deadline("identity", adminAuth().updateUser(uid, { displayName }));
  // This instance shows the new name on the very next page.
  authCache.forgetUser(uid, email ?? undefined);
}

/**
 * Revokes every refresh token of the user: every session cookie minted
 * before now is refused — at once on this instance; callers publish the
 * change to the others (publishInvalidation; a lost notice: within the
 * identity cache's TTL, ADR 002).
 */
export async function revokeAllSessions(uid: string, email: string | null): Promise<void> {
  await deadline("identity", adminAuth().revokeRefreshTokens(uid));
  authCache.forgetUser(uid, email ?? undefined);
}

// ---- the product's data ----------------------------------------------------------

/**
 * Tables whose rows belong to one user, by the column naming them. Messages
 * belong to a conversation and go with it.
 */
export const USER_TABLES: ReadonlyArray<{ table: PgTable; owner: PgColumn }> = [
  { table: conversations, owner: conversations.uid },
  // The folders they filed chats in (a chat's folder is cleared with it: on delete set null).
  { table: conversationFolders, owner: conversationFolders.uid },
  // Their projects (a chat's project is cleared with it: on delete set null; docs/decisions/106).
  { table: projects, owner: projects.uid },
  { table: usageDaily, owner: usageDaily.uid },
  { table: quotaReservations, owner: quotaReservations.uid },
  { table: userPreferences, owner: userPreferences.uid },
  { table: userToolSettings, owner: userToolSettings.uid },
  // Their calls of tool servers' tools (with the arguments the model chose) and the chats that allowed a tool.
  { table: toolCalls, owner: toolCalls.uid },
  { table: chatToolAllowances, owner: chatToolAllowances.uid },
  // Tool servers' requests for their input (the forms; an answer is kept only until it is sent).
  { table: toolElicitations, owner: toolElicitations.uid },
  // 👍/👎 on their replies (also gone with the messages), and the links they shared: a deleted account's link stops working.
  { table: messageFeedback, owner: messageFeedback.uid },
  { table: sharedConversations, owner: sharedConversations.uid },
  // Replies being generated, with what they have streamed so far (their events go with them).
  { table: replyRuns, owner: replyRuns.uid },
  // Files they attached (a sent one also goes with its message); their bytes and passages go with them.
  { table: attachments, owner: attachments.uid },
  // What the user wrote to the admins (contact messages and reports): their words.
  { table: inboxMessages, owner: inboxMessages.senderUid },
  // Which Stripe customer and subscriptions were theirs, and their sends refused at a limit.
  { table: billingCustomers, owner: billingCustomers.uid },
  { table: billingSubscriptions, owner: billingSubscriptions.uid },
  { table: limitRefusals, owner: limitRefusals.uid },
  // Their sign-ins to tool servers (docs/decisions/092): the sealed tokens, revoked at the servers as the account goes, and sign-ins not finished.
  { table: mcpOauthTokens, owner: mcpOauthTokens.uid },
  { table: mcpOauthPending, owner: mcpOauthPending.uid },
  // What the assistant remembers about them (docs/decisions/103).
  { table: memories, owner: memories.uid },
  // Their API keys (docs/decisions/099): a deleted account's key stops working with it.
  { table: apiKeys, owner: apiKeys.uid },
  // Their imports of chat history (docs/decisions/104): the jobs with the conversations waiting, and which chats came from where.
  { table: importJobs, owner: importJobs.uid },
  { table: importedConversations, owner: importedConversations.uid },
  // Tool servers of their own (docs/decisions/094); shared servers have no owner and stay.
  { table: mcpServers, owner: mcpServers.ownerUid },
  // The devices told when a reply is done, and which of their tabs are visible (docs/decisions/101).
  { table: pushSubscriptions, owner: pushSubscriptions.uid },
  { table: tabPresence, owner: tabPresence.uid },
];

/** Tables that mention a user but are kept when the account goes, and why. */
export const RETAINED_TABLES: Readonly<Record<string, string>> = {
  role_audit:
    "The admins' record of role changes (who changed whose role, when): kept for accountability; it holds emails and roles only.",
  account_audit:
    "The admins' record of accounts they disabled, enabled or logged out everywhere (who, whom, when): kept for accountability, like role_audit.",
  inbox_replies:
    "Admins' replies to inbox messages; its uid is the replying admin's. A reply goes with its message (on delete cascade), so a deleted sender's thread goes with their messages.",
  admin_audit:
    "The admins' record of opening users' reported conversations (who, whose, when; docs/decisions/063): kept for accountability, like role_audit; it holds uids and ids, no content.",
  stripe_events:
    "The billing record: every event Stripe sent (payments, subscriptions), kept as the shop's accounts are; the customer's own data is at Stripe, where deleting the customer is the operator's step (docs/features.md, \"Budgets and plans\").",
  deleted_accounts:
    "The tombstone of a deleted account (its uid and when): what makes a chat request still in flight write nothing after the deletion (docs/decisions/045).",
};

export interface AccountExport {
  format: "nuvara-account-export";
  version: 1;
  exportedAt: string;
  account: AccountDetails & { role: string; plan: string };
  preferences: {
    customInstructions: string;
    functionTools: Array<{ toolId: string; enabled: boolean; updatedAt: string }>;
    /** Memory across chats is on (docs/decisions/103). */
    memoryEnabled: boolean;
  };
  /** What the assistant remembers about them (docs/decisions/103): who saved each, and in which chat. */
  memories: Array<{
    id: string;
    text: string;
    source: string;
    conversationId: string | null;
    createdAt: string;
    updatedAt: string;
  }>;
  conversations: Array<{
    id: string;
    title: string | null;
    model: string | null;
    systemPrompt: string | null;
    customInstructions: string | null;
    createdAt: string;
    updatedAt: string;
    pinnedAt: string | null;
    archivedAt: string | null;
    folderId: string | null;
    /** The tools switched off for this chat only (the composer's tools menu). */
    toolsOff: string[];
    /** The last message of the branch shown (docs/decisions/069); null: the latest. */
    currentLeafId?: string | null;
    messages: Array<{
      id: string;
      /** The message it follows (null for a first message): the messages form a tree of branches. */
      parentId?: string | null;
      role: string;
      content: string;
      parts: unknown[];
      status: string | null;
      model: string | null;
      inputTokens: number | null;
      outputTokens: number | null;
      createdAt: string;
      completedAt: string | null;
    }>;
  }>;
  /** The folders their chats are filed in. */
  folders: Array<{ id: string; name: string; createdAt: string }>;
  usage: Array<{ day: string; messages: number; inputTokens: number; outputTokens: number }>;
  messagesToAdmins: Array<{
    kind: string;
    body: string;
    reportReason: string | null;
    exchange: unknown;
    createdAt: string;
  }>;
  /** Share links, revoked ones included (with when). */
  /** The user's 👍 (1) / 👎 (-1) on replies. */
  replyFeedback: Array<{ messageId: string; rating: number; updatedAt: string }>;
  sharedLinks: Array<{
    id: string;
    conversationId: string | null;
    title: string;
    displayName: string | null;
    snapshot: unknown[];
    createdAt: string;
    revokedAt: string | null;
  }>;
  /** Files they attached, with their bytes (base64); `messageId` null for one never sent. */
  files: Array<{
    id: string;
    messageId: string | null;
    name: string;
    kind: string;
    mediaType: string;
    size: number;
    createdAt: string;
    contentBase64: string;
  }>;
  /**
   * Tool servers of their own (docs/decisions/094): what they typed, never a
   * sealed secret (a header's value, a client secret) — those open only with
   * the operator's key and would be of no use in the file.
   */
  toolServers: Array<{ name: string; url: string; authKind: string; createdAt: string }>;
}

/** Everything the product holds about the user, as one JSON document. */
export async function exportAccountData(
  db: Db,
  account: AccountDetails,
  plan: { role: string; plan: string },
  now = new Date(),
): Promise<AccountExport> {
  const uid = account.uid;
  // A temporary chat is never exported (docs/decisions/085): it is not part of the user's history.
  const kept = and(eq(conversations.uid, uid), eq(conversations.temporary, false));
  /** A message of a kept chat. */
  const inKeptChat = (tx: Tx) =>
    inArray(messages.conversationId, tx.select({ id: conversations.id }).from(conversations).where(kept));
  /** Files sent in a temporary chat are not exported either; a file never sent belongs to no chat and is. */
  const sentInKeptChat = (tx: Tx) =>
    or(
      isNull(attachments.messageId),
      inArray(attachments.messageId, tx.select({ id: messages.id }).from(messages).where(inKeptChat(tx))),
    );
  // One snapshot: a reply saved meanwhile is either wholly in the file or not at all.
  const rows = await db.transaction(
    async (tx) => ({
      conversations: await tx.select().from(conversations).where(kept).orderBy(asc(conversations.createdAt)),
      messages: await tx.select().from(messages).where(inKeptChat(tx)).orderBy(asc(messages.seq)),
      folders: await tx
        .select()
        .from(conversationFolders)
        .where(eq(conversationFolders.uid, uid))
        .orderBy(asc(conversationFolders.createdAt)),
      usage: await tx.select().from(usageDaily).where(eq(usageDaily.uid, uid)).orderBy(asc(usageDaily.day)),
      preferences: await tx.select().from(userPreferences).where(eq(userPreferences.uid, uid)),
      memories: await tx.select().from(memories).where(eq(memories.uid, uid)).orderBy(asc(memories.createdAt)),
      toolSettings: await tx
        .select()
        .from(userToolSettings)
        .where(eq(userToolSettings.uid, uid))
        .orderBy(asc(userToolSettings.toolId)),
      inbox: await tx
        .select()
        .from(inboxMessages)
        .where(eq(inboxMessages.senderUid, uid))
        .orderBy(asc(inboxMessages.createdAt)),
      feedback: await tx
        .select()
        .from(messageFeedback)
        .where(eq(messageFeedback.uid, uid))
        .orderBy(asc(messageFeedback.updatedAt)),
      shares: await tx
        .select()
        .from(sharedConversations)
        .where(eq(sharedConversations.uid, uid))
        .orderBy(asc(sharedConversations.createdAt)),
      files: await tx
        .select({
          id: attachments.id,
          messageId: attachments.messageId,
          name: attachments.name,
          kind: attachments.kind,
          mediaType: attachments.mediaType,
          size: attachments.size,
          createdAt: attachments.createdAt,
          bytes: attachmentData.bytes,
        })
        .from(attachments)
        .innerJoin(attachmentData, eq(attachmentData.attachmentId, attachments.id))
        .where(and(eq(attachments.uid, uid), sentInKeptChat(tx)))
        .orderBy(asc(attachments.createdAt)),
      // Only these columns: the sealed ones never leave the server.
      toolServers: await tx
        .select({
          name: mcpServers.name,
          url: mcpServers.url,
          authKind: mcpServers.authKind,
          createdAt: mcpServers.createdAt,
        })
        .from(mcpServers)
        .where(eq(mcpServers.ownerUid, uid))
        .orderBy(asc(mcpServers.createdAt)),
    }),
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );

  const byConversation = new Map<string, AccountExport["conversations"][number]["messages"]>();
  for (const row of rows.messages) {
    const list = byConversation.get(row.conversationId) ?? [];
    list.push({
      id: row.id,
      parentId: row.parentId,
      role: row.role,
      content: row.content,
      parts: row.parts,
      status: row.status,
      model: row.model,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      createdAt: row.createdAt.toISOString(),
      completedAt: row.completedAt?.toISOString() ?? null,
    });
    byConversation.set(row.conversationId, list);
  }

  return {
    format: "nuvara-account-export",
    version: 1,
    exportedAt: now.toISOString(),
    account: { ...account, ...plan },
    preferences: {
      customInstructions: rows.preferences[0]?.customInstructions ?? "",
      functionTools: rows.toolSettings.map((row) => ({
        toolId: row.toolId,
        enabled: row.enabled,
        updatedAt: row.updatedAt.toISOString(),
      })),
      memoryEnabled: rows.preferences[0]?.memoryEnabled ?? true,
    },
    memories: rows.memories.map((row) => ({
      id: row.id,
      text: row.text,
      source: row.source,
      conversationId: row.conversationId,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    })),
    conversations: rows.conversations.map((row) => ({
      id: row.id,
      title: row.title,
      model: row.model,
      systemPrompt: row.systemPrompt,
      customInstructions: row.customInstructions,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      pinnedAt: row.pinnedAt?.toISOString() ?? null,
      archivedAt: row.archivedAt?.toISOString() ?? null,
      folderId: row.folderId,
      toolsOff: row.toolsOff ?? [],
      currentLeafId: row.currentLeafId,
      messages: byConversation.get(row.id) ?? [],
    })),
    folders: rows.folders.map((row) => ({ id: row.id, name: row.name, createdAt: row.createdAt.toISOString() })),
    usage: rows.usage.map((row) => ({
      day: row.day,
      messages: row.messages,
      inputTokens: Number(row.inputTokens),
      outputTokens: Number(row.outputTokens),
    })),
    messagesToAdmins: rows.inbox.map((row) => ({
      kind: row.kind,
      body: row.body,
      reportReason: row.reportReason,
      exchange: row.exchange,
      createdAt: row.createdAt.toISOString(),
    })),
    replyFeedback: rows.feedback.map((row) => ({
      messageId: row.messageId,
      rating: row.rating,
      updatedAt: row.updatedAt.toISOString(),
    })),
    sharedLinks: rows.shares.map((row) => ({
      id: row.id,
      conversationId: row.conversationId,
      title: row.title,
      displayName: row.displayName,
      snapshot: row.snapshot,
      createdAt: row.createdAt.toISOString(),
      revokedAt: row.revokedAt?.toISOString() ?? null,
    })),
    files: rows.files.map(({ bytes, createdAt, ...row }) => ({
      ...row,
      createdAt: createdAt.toISOString(),
      contentBase64: Buffer.from(bytes).toString("base64"),
    })),
    toolServers: rows.toolServers.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })),
  };
}

/** Deletes the user's rows from every table in USER_TABLES, in one transaction; returns rows deleted per table. */
export async function deleteUserRows(db: Db, uid: string): Promise<Record<string, number>> {
  // Deletion wins (docs/decisions/045): under the account's lock, held exclusively, with the
  // tombstone written in the same transaction, so a chat request still in flight writes nothing after it.
  return deleteForAccount(db, uid, async (tx) => {
    const counts: Record<string, number> = {};
    // Explicitly, although the foreign key cascades: the count is reported, and
    // nothing depends on the cascade staying.
    const owned: SQL = inArray(
      messages.conversationId,
      tx.select({ id: conversations.id }).from(conversations).where(eq(conversations.uid, uid)),
    );
    counts.messages = (await tx.delete(messages).where(owned).returning({ id: messages.id })).length;
    for (const { table, owner } of USER_TABLES) {
      const result = await tx.delete(table).where(eq(owner, uid));
      counts[getTableName(table)] = result.rowCount ?? 0;
    }
    return counts;
  });
}

export class AccountDeletionError extends Error {
  constructor(
    message: string,
    /** Whether the product's data (PostgreSQL, users/{email}) is already gone. */
    readonly dataDeleted: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Deletes the account and everything of it: the user's PostgreSQL rows,
 * users/{email} in Firestore, then the identity account.
 *
 * The account is disabled first, so no new session check passes, and the
 * rows go under the account's lock with a tombstone (deleteUserRows): a
 * request already past its check writes nothing after them (docs/decisions/045).
 * The identity goes last, so a failure part-way leaves an account the user can sign in to and
 * delete again (every step is idempotent); it is enabled again on failure,
 * unless `enableOnFailure` is false (an admin deleting an account that was
 * already disabled).
 */
export async function deleteAccount(
  db: Db,
  { uid, email }: { uid: string; email: string | null },
  { enableOnFailure = true }: { enableOnFailure?: boolean } = {},
): Promise<Record<string, number>> {
  const auth = adminAuth();
  await deadline("identity", auth.updateUser(uid, { disabled: true }));
  // Every instance refuses the account's sessions from now on.
  await publishInvalidation({ uid, email: email ?? undefined, reason: "disable" });
  let counts: Record<string, number>;
  let dataDeleted = false;
  // Read before the rows go, revoked after: best effort, never holding the deletion up (docs/decisions/092).
  const revocations = await revocationsForAccount(db, uid).catch(() => []);
  try {
    // No deadline here: a transaction cut short by one might still commit, and
    // the answer would then be wrong; each query has the pool's own timeout.
    counts = await deleteUserRows(db, uid);
    // An address that cannot key users/{email} has no record there (docs/decisions/075).
    if (email) await deadline("firestore", deleteRoleRecord(email));
    dataDeleted = true;
    await deadline("identity", auth.deleteUser(uid));
  } catch (error) {
    if (enableOnFailure) await deadline("identity", auth.updateUser(uid, { disabled: false })).catch(() => undefined);
    authCache.forgetUser(uid, email ?? undefined);
    throw new AccountDeletionError(
      dataDeleted
        ? "Your data was deleted, but the account itself could not be removed right now. Please try again shortly."
        : "Your account could not be deleted right now; nothing was deleted. Please try again shortly.",
      dataDeleted,
      { cause: error },
    );
  }
  authCache.forgetUser(uid, email ?? undefined);
  void revokeAll(revocations);
  return counts;
}
