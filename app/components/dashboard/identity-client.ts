/**
 * The dashboard's uses of the Firebase client SDK: confirming it's the user
 * (signing in again), changing the password, sending the verification email.
 *
 * Import this module only with `await import("./identity-client")` inside an
 * event handler: the SDK then loads when a user needs it, and the dashboard's
 * own bundle stays free of Firebase code (ADR 030).
 */
import { sendEmailVerification, updatePassword, type User } from "firebase/auth";
import {
  checkPassword,
  clientAuth,
  clientSignOut,
  signInForIdToken,
  type PasswordCheck,
  type PublicFirebaseConfig,
} from "~/auth/firebase-client";

export type ConfirmMethod = { kind: "password"; email: string; password: string } | { kind: "google" };

/**
 * Signs in again with the identity service ("requires-recent-login", ADR 030)
 * and, with the fresh ID token, replaces the session cookie by one whose
 * sign-in is now. Then `then` runs with the signed-in client user, and the
 * client SDK signs out again: the server cookie stays the only session.
 */
export async function confirmIdentity<T>(
  config: PublicFirebaseConfig,
  method: ConfirmMethod,
  then?: (user: User) => Promise<T>,
): Promise<T | undefined> {
  const auth = await clientAuth(config);
  try {
    const idToken = await signInForIdToken(auth, method);
    await startSession(idToken);
    return then && auth.currentUser ? await then(auth.currentUser) : undefined;
  } finally {
    await clientSignOut(auth);
  }
}

/** Posts a fresh ID token to the session endpoint; throws with its message when refused. */
async function startSession(idToken: string): Promise<void> {
  const response = await fetch("/api/auth/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ idToken }),
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new Error(body?.error ?? "Logging in again didn't work. Please try again.");
  }
}

/** The identity service sends the email (the Auth emulator prints its link in local mode). */
export function sendVerification(user: User) {
  return sendEmailVerification(user);
}

/**
 * Changes the password after confirming the current one. The identity
 * service revokes every session on a password change, so a new session is
 * made from a sign-in with the new password: this browser stays signed in,
 * every other device is signed out.
 */
export async function changePassword(
  config: PublicFirebaseConfig,
  email: string,
  current: string,
  next: string,
): Promise<void> {
  const auth = await clientAuth(config);
  try {
    await signInForIdToken(auth, { kind: "password", email, password: current });
    if (!auth.currentUser) throw new Error("Logging in again didn't work. Please try again.");
    await updatePassword(auth.currentUser, next);
    await clientSignOut(auth);
    await startSession(await signInForIdToken(auth, { kind: "password", email, password: next }));
  } finally {
    await clientSignOut(auth);
  }
}

/**
 * The password policy's checks for a new password: the project's, or where none is published the
 * identity service's default, at least 6 characters.
 */
export async function newPasswordChecks(config: PublicFirebaseConfig, password: string): Promise<PasswordCheck[]> {
  return checkPassword(await clientAuth(config), password);
}
