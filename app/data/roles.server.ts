import { adminFirestore } from "~/firebase.server";

/**
 * The role record, users/{email}.stripeRole in Firestore (seed §3): it may be
 * written by other systems (a billing integration), so it is read, not copied.
 */
const USERS = "users";

export async function readRole(email: string): Promise<string> {
  const snapshot = await adminFirestore().collection(USERS).doc(email).get();
  const role = snapshot.exists ? snapshot.get("stripeRole") : undefined;
  return typeof role === "string" ? role : "";
}

export async function writeRole(email: string, role: string): Promise<void> {
  // "" clears the role; an empty string reads back exactly as a missing field.
  await adminFirestore().collection(USERS).doc(email).set({ stripeRole: role }, { merge: true });
}
