import { getApp, getApps, initializeApp } from "firebase/app";
import {
  connectAuthEmulator,
  createUserWithEmailAndPassword,
  getAuth,
  GoogleAuthProvider,
  inMemoryPersistence,
  OAuthProvider,
  SAMLAuthProvider,
  sendEmailVerification,
  sendPasswordResetEmail,
  setPersistence,
  signInWithEmailAndPassword,
  signInWithPopup,
  signOut,
  validatePassword,
  type Auth,
  type AuthProvider as FirebaseAuthProvider,
  type UserCredential,
} from "firebase/auth";
import type { AuthProvider } from "~/settings/auth-providers";

/**
 * The Firebase client SDK, used by the login page only (other pages ship no
 * Firebase code). It keeps no session of its own: in-memory persistence, and
 * it signs out as soon as the server has made its session cookie.
 */
export interface PublicFirebaseConfig {
  apiKey: string;
  authDomain?: string;
  projectId: string;
  appId?: string;
  authEmulatorUrl?: string;
}

let auth: Auth | undefined;

export async function clientAuth(config: PublicFirebaseConfig): Promise<Auth> {
  if (auth) return auth;
  const app = getApps().length
    ? getApp()
    : initializeApp({
        apiKey: config.apiKey,
        authDomain: config.authDomain,
        projectId: config.projectId,
        appId: config.appId,
      });
  const instance = getAuth(app);
  if (config.authEmulatorUrl) connectAuthEmulator(instance, config.authEmulatorUrl, { disableWarnings: true });
  await setPersistence(instance, inMemoryPersistence);
  auth = instance;
  return instance;
}

export type SignInMethod =
  | { kind: "password"; email: string; password: string }
  | { kind: "signup"; email: string; password: string }
  /** The dashboard's re-confirmation with Google. */
  | { kind: "google" }
  /** Google, or an OIDC/SAML provider enabled in the Firebase project (AUTH_PROVIDERS). */
  | { kind: "federated"; provider: Pick<AuthProvider, "id" | "kind"> };

function federatedProvider({ id, kind }: Pick<AuthProvider, "id" | "kind">): FirebaseAuthProvider {
  if (kind === "google") return new GoogleAuthProvider();
  if (kind === "saml") return new SAMLAuthProvider(id);
  if (kind === "oidc") return new OAuthProvider(id);
  throw new Error(`${id} is not a popup login provider.`);
}

/** Signs in with the identity service and returns a fresh ID token for the server. */
export async function signInForIdToken(authInstance: Auth, method: SignInMethod): Promise<string> {
  let credential: UserCredential;
  if (method.kind === "password") {
    credential = await signInWithEmailAndPassword(authInstance, method.email, method.password);
  } else if (method.kind === "signup") {
    credential = await createUserWithEmailAndPassword(authInstance, method.email, method.password);
    // The identity service sends the verification email (the emulator logs the link).
    await sendEmailVerification(credential.user).catch(() => undefined);
  } else {
    const provider = method.kind === "google" ? new GoogleAuthProvider() : federatedProvider(method.provider);
    credential = await signInWithPopup(authInstance, provider);
  }
  return credential.user.getIdToken();
}

export async function clientSignOut(authInstance: Auth) {
  await signOut(authInstance).catch(() => undefined);
}

export function sendReset(authInstance: Auth, email: string) {
  return sendPasswordResetEmail(authInstance, email);
}

export interface PasswordCheck {
  label: string;
  met: boolean;
}

/**
 * The project's password policy as the user types (docs/features.md, "Signing
 * up and signing in"). Where the identity service provides no policy (the
 * emulator answers 501), the identity service's default applies: at least 6
 * characters.
 */
export async function checkPassword(authInstance: Auth, password: string): Promise<PasswordCheck[]> {
  try {
    const status = await validatePassword(authInstance, password);
    const policy = status.passwordPolicy.customStrengthOptions;
    const checks: PasswordCheck[] = [];
    const min = policy.minPasswordLength ?? 6;
    checks.push({ label: `At least ${min} characters`, met: status.meetsMinPasswordLength ?? password.length >= min });
    if (policy.maxPasswordLength) {
      checks.push({
        label: `At most ${policy.maxPasswordLength} characters`,
        met: status.meetsMaxPasswordLength ?? true,
      });
    }
    if (policy.containsLowercaseLetter)
      checks.push({ label: "A lowercase letter", met: Boolean(status.containsLowercaseLetter) });
    if (policy.containsUppercaseLetter)
      checks.push({ label: "An uppercase letter", met: Boolean(status.containsUppercaseLetter) });
    if (policy.containsNumericCharacter)
      checks.push({ label: "A number", met: Boolean(status.containsNumericCharacter) });
    if (policy.containsNonAlphanumericCharacter) {
      checks.push({
        label: "A symbol (not a letter or number)",
        met: Boolean(status.containsNonAlphanumericCharacter),
      });
    }
    return checks;
  } catch {
    return [{ label: "At least 6 characters", met: password.length >= 6 }];
  }
}
