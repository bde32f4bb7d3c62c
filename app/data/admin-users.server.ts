import { sql } from "drizzle-orm";
import type { UserRecord } from "firebase-admin/auth";
import { authCache } from "~/auth/auth-cache.server";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { withDeadline } from "~/deadline.server";
import { adminAuth, adminFirestore } from "~/firebase.server";
import { recordRoleChange } from "./audit.server";
import { readRole, writeRole } from "./roles.server";

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
  emailVerified: boolean;
  disabled: boolean;
  /** ISO 8601, or null when the identity service does not say. */
  createdAt: string | null;
  lastSignInAt: string | null;
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

async function rolesFor(emails: string[]): Promise<Map<string, string>> {
  const roles = new Map<string, string>();
  if (emails.length === 0) return roles;
  const users = adminFirestore().collection("users");
  const snapshots = await deadline("firestore", adminFirestore().getAll(...emails.map((email) => users.doc(email))));
  for (const snapshot of snapshots) {
    const role = snapshot.exists ? snapshot.get("stripeRole") : undefined;
    roles.set(snapshot.id, typeof role === "string" ? role : "");
  }
  return roles;
}

export async function listUsersForAdmin({ q, pageToken }: { q?: string; pageToken?: string }): Promise<UserListing> {
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
  const roles = await rolesFor(withEmail.map((u) => u.email));
  const users = withEmail
    .map((u) => ({
      uid: u.uid,
      email: u.email,
      name: u.displayName ?? null,
      role: roles.get(u.email) ?? "",
      emailVerified: u.emailVerified,
      disabled: u.disabled,
      createdAt: isoOrNull(u.metadata.creationTime),
      lastSignInAt: isoOrNull(u.metadata.lastSignInTime),
    }))
    .sort((a, b) => a.email.localeCompare(b.email));
  return { users, nextPageToken: token ?? null };
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
  const snapshot = await deadline(
    "firestore",
    adminFirestore().collection("users").where("stripeRole", "==", "admin").limit(100).get(),
  );
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
 * remaining admin, and none was left (security review L-1). With the lock
 * the second one sees the first change and is refused.
 */
export async function changeRole(
  db: Db,
  actor: { uid: string; email: string },
  targetEmail: string,
  newRole: string,
): Promise<RoleChangeResult> {
  const email = targetEmail.trim().toLowerCase();
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
  // This instance shows the new role on the user's next page; other
  // instances within their role cache's TTL (at most 30 s, DESIGN.md §1).
  if (result.changed) authCache.forgetRole(email);
  return result;
}
