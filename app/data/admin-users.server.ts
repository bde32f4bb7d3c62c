import { and, gte, inArray, sql } from "drizzle-orm";
import type { UserRecord } from "firebase-admin/auth";
import { publishInvalidation } from "~/auth/invalidation.server";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { usageDaily, type AccountAction } from "~/db/schema";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { adminAuth } from "~/firebase.server";
import { deleteAccount, revokeAllSessions } from "./account.server";
import { recordAccountAction, recordRoleChange } from "./audit.server";
import {
  canHoldRole,
  readRole,
  readRoles,
  roleKeyProblem,
  UnkeyableEmailError,
  usersCollection,
  writeRole,
} from "~/auth/roles.server";

/**
 * Users as the role page shows them: identities from the identity service
 * joined with their users/{email} role records. Listing starts from the
 * identity service because the Firestore emulator cannot page through a
 * collection (no cursors, no listDocuments).
 */

export interface AdminUserRow {
  uid: string;
  email: string;
  name: string | null;
  role: string;
  /** Whether the address can hold a role at all (docs/decisions/075). */
  canHoldRole: boolean;
  /** Said on the row when the role is not what it shows: an address that cannot hold one, or a read that failed. */
  roleNote: string | null;
  emailVerified: boolean;
  disabled: boolean;
  /** ISO 8601, or null when the identity service does not say. */
  createdAt: string | null;
  lastSignInAt: string | null;
  /** This UTC month so far, from usage_daily (what the quota counts). */
  usage: { messages: number; tokens: number };
}

export interface UserListing {
  users: AdminUserRow[];
  /** Continue the listing (or the search) from here; null at the end. */
  nextPageToken: string | null;
}

/** Users shown per page without a search. */
const PAGE_SIZE = 100;
/** A search reads up to this many identity pages (of 1000) per request. */
const SEARCH_PAGES = 5;
const SEARCH_RESULTS = 100;

function deadline<T>(backend: string, work: Promise<T>): Promise<T> {
  return withDeadline(backend, getConfig().backendTimeoutMs, work);
}

function isoOrNull(time: string | undefined): string | null {
  if (!time) return null;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** What the row says instead of a role it cannot show: why it has none, or that it could not be read. */
function roleNoteOf(email: string, role: string | Error | undefined): string | null {
  const problem = roleKeyProblem(email);
  if (problem)
    return `This address can't hold a role (${problem}, which a role record can't be named by): it has no role. The account can still be disabled or deleted.`;
  return role instanceof Error ? "The role could not be read right now; reload the page to try again." : null;
}

/** Each user's role on its own (docs/decisions/075): one record that cannot be read never fails the list. */
async function rolesFor(emails: string[]): Promise<Map<string, string | Error>> {
  const roles = await readRoles(emails, (work) => deadline("firestore", work));
  const failed = [...roles.values()].find((role): role is Error => role instanceof Error);
  if (failed) logBackendFault("firestore", "reading roles for the user list", failed);
  return roles;
}

function roleShown(role: string | Error | undefined): string {
  return typeof role === "string" ? role : "";
}

/** The first day of `now`'s UTC month, YYYY-MM-DD. */
export function monthStart(now = new Date()): string {
  return `${now.toISOString().slice(0, 7)}-01`;
}

/** Messages and tokens (in + out) per uid since the start of this UTC month; users without use are absent. */
export async function usageThisMonth(
  db: Db,
  uids: string[],
  now = new Date(),
): Promise<Map<string, { messages: number; tokens: number }>> {
  const usage = new Map<string, { messages: number; tokens: number }>();
  if (uids.length === 0) return usage;
  const rows = await db
    .select({
      uid: usageDaily.uid,
      messages: sql<string>`coalesce(sum(${usageDaily.messages}), 0)`,
      tokens: sql<string>`coalesce(sum(${usageDaily.inputTokens} + ${usageDaily.outputTokens}), 0)`,
    })
    .from(usageDaily)
    .where(and(inArray(usageDaily.uid, uids), gte(usageDaily.day, monthStart(now))))
    .groupBy(usageDaily.uid);
  for (const row of rows) usage.set(row.uid, { messages: Number(row.messages), tokens: Number(row.tokens) });
  return usage;
}

/**
 * `usage`: each listed user's use this month, or null when PostgreSQL could
 * not say (the list still shows, without usage).
 */
export async function listUsersForAdmin({
  q,
  pageToken,
  usage,
}: {
  q?: string;
  pageToken?: string;
  usage?: (uids: string[]) => Promise<Map<string, { messages: number; tokens: number }> | null>;
}): Promise<UserListing & { usageUnavailable: boolean }> {
  const needle = q?.trim().toLowerCase();
  const found: UserRecord[] = [];
  let token = pageToken;
  let pages = 0;
  do {
    const page = await deadline("identity", adminAuth().listUsers(needle ? 1000 : PAGE_SIZE, token));
    found.push(...(needle ? page.users.filter((u) => u.email?.toLowerCase().includes(needle)) : page.users));
    token = page.pageToken;
    pages += 1;
  } while (needle && token && pages < SEARCH_PAGES && found.length < SEARCH_RESULTS);

  // Accounts without an email (phone or anonymous sign-in) can hold no role.
  const withEmail = found.filter((u): u is UserRecord & { email: string } => Boolean(u.email));
  const [roles, used] = await Promise.all([
    rolesFor(withEmail.map((u) => u.email)),
    usage ? usage(withEmail.map((u) => u.uid)) : Promise.resolve(null),
  ]);
  const users = withEmail
    .map((u) => ({
      uid: u.uid,
      email: u.email,
      name: u.displayName ?? null,
      role: roleShown(roles.get(u.email)),
      canHoldRole: canHoldRole(u.email),
      roleNote: roleNoteOf(u.email, roles.get(u.email)),
      emailVerified: u.emailVerified,
      disabled: u.disabled,
      createdAt: isoOrNull(u.metadata.creationTime),
      lastSignInAt: isoOrNull(u.metadata.lastSignInTime),
      usage: used?.get(u.uid) ?? { messages: 0, tokens: 0 },
    }))
    .sort((a, b) => a.email.localeCompare(b.email));
  return { users, nextPageToken: token ?? null, usageUnavailable: used === null };
}

export class LastAdminError extends Error {
  constructor(self: boolean, email: string) {
    super(
      self
        ? "You are the only admin: make someone else an admin before you give up your own admin role."
        : `${email} is now the only admin: make someone else an admin before taking the admin role away from ${email}.`,
    );
  }
}

/**
 * Whether anyone besides `email` holds admin in a way that counts: role
 * "admin" on a verified, enabled account (as requireAdmin demands).
 */
async function anotherAdminExists(email: string): Promise<boolean> {
  const snapshot = await deadline("firestore", usersCollection().where("stripeRole", "==", "admin").limit(100).get());
  const others = snapshot.docs.map((doc) => doc.id).filter((id) => id !== email);
  if (others.length === 0) return false;
  const { users } = await deadline("identity", adminAuth().getUsers(others.map((other) => ({ email: other }))));
  return users.some((user) => user.emailVerified && !user.disabled);
}

export interface RoleChangeResult {
  email: string;
  oldRole: string;
  newRole: string;
  changed: boolean;
}

/**
 * Any fixed number, the same on every instance: role changes from the admin
 * page hold this PostgreSQL advisory lock from reading the role to writing it.
 */
const ROLE_CHANGE_LOCK = 74_210_002;

/**
 * Sets users/{email}.stripeRole as the role CLI does, with an audit entry in
 * PostgreSQL. The entry is written in a transaction that commits only after
 * Firestore took the role, so the trail never shows a change that did not
 * happen. Throws LastAdminError when the change would take admin from the
 * last admin, whoever makes it.
 *
 * Role changes are serialised across instances by a transaction-scoped
 * advisory lock around read, count, write and audit: two admins demoting
 * themselves or each other at the same moment each counted the other as the
 * remaining admin, and none was left (ADR 049). With the lock
 * the second one sees the first change and is refused.
 */
export async function changeRole(
  db: Db,
  actor: { uid: string; email: string },
  targetEmail: string,
  newRole: string,
): Promise<RoleChangeResult> {
  const email = targetEmail.trim().toLowerCase();
  if (!canHoldRole(email)) throw new UnkeyableEmailError(email);
  const result = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ROLE_CHANGE_LOCK})`);
    const oldRole = await deadline("firestore", readRole(email));
    if (oldRole === newRole) return { email, oldRole, newRole, changed: false };
    if (oldRole === "admin" && !(await anotherAdminExists(email))) {
      throw new LastAdminError(email === actor.email.toLowerCase(), email);
    }
    await recordRoleChange(tx, { actor, targetEmail: email, oldRole, newRole });
    await deadline("firestore", writeRole(email, newRole));
    return { email, oldRole, newRole, changed: true };
  });
  // Every instance shows the new role on the user's next page (a lost
  // notice: within the role cache's TTL, at most 30 s, ADR 002).
  if (result.changed) await publishInvalidation({ email, reason: "role" });
  return result;
}

// ---- the account itself: disable, enable, sign out everywhere, delete ----------------

/** An account action the page refuses, with the reason shown to the admin. */
export class AccountActionError extends Error {
  constructor(
    message: string,
    readonly status: 404 | 409,
  ) {
    super(message);
  }
}

export interface AccountActionResult {
  email: string;
  action: AccountAction;
  /** False when the account already was as asked (disabled twice): nothing recorded. */
  changed: boolean;
}

async function accountOf(uid: string): Promise<UserRecord> {
  try {
    return await deadline("identity", adminAuth().getUser(uid));
  } catch (error) {
    if (error && typeof error === "object" && "code" in error && error.code === "auth/user-not-found") {
      throw new AccountActionError("That account no longer exists.", 404);
    }
    throw error;
  }
}

/**
 * Disables or enables an account in the identity service (its `disabled`
 * flag), or signs it out everywhere (its refresh tokens revoked), with an
 * entry in account_audit that commits only once the identity service took
 * the change. A disabled account cannot sign in (verifySignInToken) and its
 * sessions are refused at their next request (the auth module reads the
 * flag); disabling also revokes its sessions, so enabling it again does not
 * bring old sessions back.
 *
 * Under the role lock: disabling an admin counts as taking their admin role
 * (the last enabled admin cannot be disabled), and must not race a demotion.
 * An admin cannot disable or sign out their own account here (the dashboard
 * has "Sign out everywhere" for that).
 */
export async function changeAccount(
  db: Db,
  actor: { uid: string; email: string },
  uid: string,
  action: Exclude<AccountAction, "delete">,
): Promise<AccountActionResult> {
  if (uid === actor.uid) {
    throw new AccountActionError(
      action === "sign-out-everywhere"
        ? "To log yourself out everywhere, use “Log out everywhere” on your dashboard."
        : "You cannot disable or enable your own account.",
      409,
    );
  }
  const record = await accountOf(uid);
  const email = (record.email ?? "").toLowerCase();
  const result = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ROLE_CHANGE_LOCK})`);
    if (action === "disable" || action === "enable") {
      const disabled = action === "disable";
      if (record.disabled === disabled) return { email, action, changed: false };
      if (
        disabled &&
        email &&
        (await deadline("firestore", readRole(email))) === "admin" &&
        !(await anotherAdminExists(email))
      ) {
        throw new AccountActionError(
          `${email} is the only admin: make someone else an admin before disabling this account.`,
          409,
        );
      }
      await recordAccountAction(tx, { actor, targetUid: uid, targetEmail: email, action });
      await deadline("identity", adminAuth().updateUser(uid, { disabled }));
      if (disabled) await revokeAllSessions(uid, email || null);
      return { email, action, changed: true };
    }
    await recordAccountAction(tx, { actor, targetUid: uid, targetEmail: email, action });
    await revokeAllSessions(uid, email || null);
    return { email, action, changed: true };
  });
  // Every instance refuses their sessions at once (a lost notice: within the cache's TTL, ADR 002).
  await publishInvalidation({ uid, email: email || undefined, reason: action });
  return result;
}

/**
 * Deletes another account and everything of it, as the account's own
 * "Delete account" does (deleteAccount), with an entry in account_audit once
 * it is gone. The account is disabled first under the role lock: deleting
 * the last enabled admin is refused like disabling them, and two admins
 * deleting each other at the same moment leave one. An account that cannot
 * hold a role (docs/decisions/075) is deleted like any other.
 */
export async function deleteAccountAsAdmin(
  db: Db,
  actor: { uid: string; email: string },
  uid: string,
): Promise<AccountActionResult> {
  if (uid === actor.uid) {
    throw new AccountActionError("To delete your own account, use “Delete account” on your dashboard.", 409);
  }
  const record = await accountOf(uid);
  const email = (record.email ?? "").toLowerCase();
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ROLE_CHANGE_LOCK})`);
    if (email && (await deadline("firestore", readRole(email))) === "admin" && !(await anotherAdminExists(email))) {
      throw new AccountActionError(
        `${email} is the only admin: make someone else an admin before deleting this account.`,
        409,
      );
    }
    if (!record.disabled) await deadline("identity", adminAuth().updateUser(uid, { disabled: true }));
  });
  await deleteAccount(db, { uid, email: record.email ?? null }, { enableOnFailure: !record.disabled });
  await recordAccountAction(db, { actor, targetUid: uid, targetEmail: email, action: "delete" });
  return { email, action: "delete", changed: true };
}
