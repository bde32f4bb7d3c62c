import type { CollectionReference, DocumentReference, DocumentSnapshot, Firestore } from "firebase-admin/firestore";
import { canHoldRole, roleKeyProblem } from "~/auth/role-key";
import { adminFirestore } from "~/firebase.server";

export { canHoldRole, roleKeyProblem };

/**
 * The role record, users/{email}.stripeRole in Firestore (ADR 001): it may be
 * written by other systems (a billing integration), so it is read, not copied.
 *
 * Every users/{email} path is made by userDoc, which refuses an address that
 * cannot be a document id (docs/decisions/075): Firestore reads "/" as a path
 * separator, so `a/b@example.com` is no document at all and
 * `x/users/y@example.com` is a document in another collection.
 */
const USERS = "users";

/** A users/{email} path was asked for an address that cannot key one. */
export class UnkeyableEmailError extends Error {
  constructor(readonly email: string) {
    super(
      `This address can't hold a role: ${roleKeyProblem(email) ?? "it is not a valid document id"}, which a role record can't be named by.`,
    );
  }
}

export function usersCollection(firestore: Firestore = adminFirestore()): CollectionReference {
  return firestore.collection(USERS);
}

/** The one way to users/{email}; throws UnkeyableEmailError for an address that cannot key it. */
export function userDoc(email: string, firestore: Firestore = adminFirestore()): DocumentReference {
  if (!canHoldRole(email)) throw new UnkeyableEmailError(email);
  return usersCollection(firestore).doc(email);
}

function roleOf(snapshot: DocumentSnapshot): string {
  const role = snapshot.exists ? snapshot.get("stripeRole") : undefined;
  return typeof role === "string" ? role : "";
}

/** The role of `email`; "" for none, and for an address that cannot hold one (nothing is read). */
export async function readRole(email: string): Promise<string> {
  if (!canHoldRole(email)) return "";
  return roleOf(await userDoc(email).get());
}

/**
 * The roles of many addresses, each on its own: a role that could not be read
 * is an Error in its place, so one bad record never fails the others. One
 * batched read first; only when it fails is each address read by itself.
 */
export async function readRoles(
  emails: string[],
  within: <T>(work: Promise<T>) => Promise<T> = (work) => work,
): Promise<Map<string, string | Error>> {
  const roles = new Map<string, string | Error>();
  const keyable = emails.filter(canHoldRole);
  for (const email of emails) if (!keyable.includes(email)) roles.set(email, "");
  if (keyable.length === 0) return roles;
  try {
    const snapshots = await within(adminFirestore().getAll(...keyable.map((email) => userDoc(email))));
    for (const snapshot of snapshots) roles.set(snapshot.id, roleOf(snapshot));
  } catch {
    const each = await Promise.allSettled(keyable.map((email) => within(readRole(email))));
    keyable.forEach((email, index) => {
      const result = each[index];
      roles.set(email, result.status === "fulfilled" ? result.value : toError(result.reason));
    });
  }
  return roles;
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** Sets the role ("" clears it; it reads back exactly as a missing field). Throws UnkeyableEmailError. */
export async function writeRole(email: string, role: string): Promise<void> {
  await userDoc(email).set({ stripeRole: role }, { merge: true });
}

/** Deletes users/{email}; an address that cannot key one has none to delete. */
export async function deleteRoleRecord(email: string): Promise<void> {
  if (!canHoldRole(email)) return;
  await userDoc(email).delete();
}
