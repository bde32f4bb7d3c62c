import { randomUUID } from "node:crypto";
import { emulatorAdmin } from "../../scripts/local/admin-client";

/**
 * Test identities on the Auth emulator: real accounts, real ID tokens from
 * the emulator's REST API (what the client SDK does), and the users/{email}
 * record. Used by integration and browser tests alike.
 */
export interface TestAccount {
  uid: string;
  email: string;
  password: string;
}

export function testAdmin(env: { projectId: string; authHost: string; firestoreHost: string }) {
  return emulatorAdmin(env.projectId, env.authHost, env.firestoreHost);
}

export function uniqueEmail(prefix = "user") {
  return `${prefix}-${randomUUID().slice(0, 8)}@example.com`;
}

export async function createAccount(
  admin: ReturnType<typeof testAdmin>,
  {
    role,
    verified = true,
    prefix = "user",
    displayName,
  }: { role?: string; verified?: boolean; prefix?: string; displayName?: string } = {},
): Promise<TestAccount> {
  const email = uniqueEmail(prefix);
  const password = `pw-${randomUUID()}`;
  const user = await admin.auth.createUser({ email, password, emailVerified: verified, displayName });
  if (role !== undefined) await admin.firestore.collection("users").doc(email).set({ stripeRole: role });
  return { uid: user.uid, email, password };
}

/** Signs in through the emulator's REST API, as the client SDK would, and returns the ID token. */
export async function idTokenFor(authHost: string, account: { email: string; password: string }): Promise<string> {
  const response = await fetch(
    `http://${authHost}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=demo-api-key`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: account.email, password: account.password, returnSecureToken: true }),
    },
  );
  const body = (await response.json()) as { idToken?: string; error?: { message: string } };
  if (!body.idToken) throw new Error(`Sign-in failed: ${body.error?.message}`);
  return body.idToken;
}

/**
 * An ID token whose auth_time is `ageSeconds` in the past: the emulator
 * accepts unsigned tokens, so we can make one as a stale sign-in would look.
 */
export function staleIdToken(freshToken: string, ageSeconds: number): string {
  const [header, payload] = freshToken.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
  const now = Math.floor(Date.now() / 1000);
  claims.auth_time = now - ageSeconds;
  claims.iat = now - 10;
  const encoded = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `${header}.${encoded}.`;
}

/**
 * Moves the account's "tokens valid since" into the past, as for an account
 * that existed before a stale sign-in (the emulator takes admin calls with
 * the "owner" bearer token).
 */
export async function backdateAccount(authHost: string, projectId: string, uid: string, ageSeconds: number) {
  const validSince = String(Math.floor(Date.now() / 1000) - ageSeconds);
  const response = await fetch(
    `http://${authHost}/identitytoolkit.googleapis.com/v1/projects/${projectId}/accounts:update`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer owner" },
      body: JSON.stringify({ localId: uid, validSince }),
    },
  );
  if (!response.ok) throw new Error(`Could not backdate ${uid}: ${await response.text()}`);
}

/** The second a session cookie's sign-in happened (its auth_time); the cookie as a header value or on its own. */
export function signInSecond(sessionCookie: string): number {
  const payload = sessionCookie.replace(/^__session=/, "").split(".")[1];
  return (JSON.parse(Buffer.from(payload, "base64url").toString()) as { auth_time: number }).auth_time;
}

/**
 * The identity service records a revocation in whole seconds and ends only
 * the sessions signed in before that second (auth_time < validSince, ADR 042),
 * so a revocation in a session's own sign-in second leaves it valid. Resolves
 * once the clock — the emulator's is this machine's — is past the sign-in
 * second of every session given: a revocation from then on ends them all.
 */
export async function pastSignInSecond(...sessionCookies: string[]): Promise<void> {
  const at = (Math.max(...sessionCookies.map(signInSecond)) + 1) * 1000;
  while (Date.now() < at) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
}
