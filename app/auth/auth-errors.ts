/**
 * Human messages for the identity service's error codes (tests/e2e/login.spec.ts).
 * The user never sees a raw code; an unknown code gets a general message.
 */
export const WRONG_CREDENTIALS =
  "That email and password don't match. Check them and try again, or reset your password.";

/** The requirements list sits under the password field, above this message. */
export const PASSWORD_RULES_UNMET = "Choose a password that meets every requirement in the list above.";

/**
 * The session endpoint's code for an address that cannot hold a role here
 * (docs/decisions/075): sign-up checks it before an account is made too.
 */
export const UNUSABLE_EMAIL_CODE = "auth/unusable-email-address";
export const UNUSABLE_EMAIL =
  "This email address can't be used here: an address with “/” in it (or of another rare form our account records can't store) can't log in. Please use another address.";

const MESSAGES: Record<string, string> = {
  [UNUSABLE_EMAIL_CODE]: UNUSABLE_EMAIL,
  "auth/email-already-in-use": "An account with this email already exists. Log in instead, or reset your password.",
  // One message whether the address has no account or the password is wrong:
  // sign-in never tells a visitor which addresses have accounts (as reset doesn't).
  "auth/wrong-password": WRONG_CREDENTIALS,
  "auth/invalid-credential": WRONG_CREDENTIALS,
  "auth/invalid-login-credentials": WRONG_CREDENTIALS,
  "auth/user-not-found": WRONG_CREDENTIALS,
  "auth/too-many-requests":
    "Too many attempts in a short time. Please wait a few minutes and try again, or reset your password.",
  "auth/user-disabled":
    "This account has been disabled. Contact the site's administrators if you think this is a mistake.",
  "auth/user-token-expired": "Your login has expired. Please log in again.",
  "auth/network-request-failed": "We couldn't reach the login service. Check your connection and try again.",
  "auth/requires-recent-login": "For your security, please log in again to continue.",
  "auth/invalid-email": "Enter a valid email address, like name@example.com.",
  "auth/missing-email": "Enter your email address.",
  "auth/missing-password": "Enter your password.",
  "auth/weak-password": "Choose a stronger password (at least 6 characters).",
  "auth/password-does-not-meet-requirements": PASSWORD_RULES_UNMET,
  "auth/popup-closed-by-user": "The Google login window was closed before login finished.",
  "auth/cancelled-popup-request": "The Google login window was closed before login finished.",
  "auth/popup-blocked": "Your browser blocked the login window. Allow pop-ups for this site and try again.",
  "auth/operation-not-allowed": "This way of logging in is not enabled for this site.",
  "auth/account-exists-with-different-credential":
    "An account already exists with this email using another login method. Log in that way instead.",
  "auth/internal-error": "The login service had a problem. Please try again.",
};

const GENERAL = "Logging in didn't work. Please try again.";

export function authErrorCode(error: unknown): string | undefined {
  if (error && typeof error === "object" && "code" in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

export function authErrorMessage(error: unknown): string {
  const code = authErrorCode(error);
  return (code && MESSAGES[code]) || GENERAL;
}

/** Errors that sign the current user out: the account was disabled, or its credential expired or was revoked. */
export function signsUserOut(error: unknown): boolean {
  const code = authErrorCode(error);
  return code === "auth/user-disabled" || code === "auth/user-token-expired";
}
