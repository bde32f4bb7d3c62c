import type { SessionUser } from "~/auth/session.server";
import { getConfig } from "~/config.server";
import { logBackendFault } from "~/deadline.server";
import { getAccountDetails } from "./account.server";

/** What the assistant's "verify your email" banner needs, or null when there is nothing to verify. */
export interface VerifyEmailPrompt {
  email: string;
  /** How the user confirms it's them before the identity service sends the email again. */
  hasPassword: boolean;
  hasGoogle: boolean;
  firebase: ReturnType<typeof getConfig>["publicFirebase"];
  localMode: boolean;
}

/**
 * Read fresh from the identity service (not the session's cached copy), so the
 * banner is gone on the first page load after the link was opened. Only
 * unverified sessions pay for the read; when it fails, the session's copy
 * decides and the password way is offered (how new accounts are made).
 */
export async function verifyEmailPrompt(user: SessionUser): Promise<VerifyEmailPrompt | null> {
  if (user.emailVerified || !user.email) return null;
  const config = getConfig();
  const common = { email: user.email, firebase: config.publicFirebase, localMode: config.mode === "local" };
  try {
    const details = await getAccountDetails(user.uid);
    if (details.emailVerified || !details.email) return null;
    return {
      ...common,
      email: details.email,
      hasPassword: details.hasPassword,
      hasGoogle: details.providers.some((provider) => provider.id === "google.com"),
    };
  } catch (error) {
    logBackendFault("identity", "reading the account for the verify-email banner", error);
    return { ...common, hasPassword: true, hasGoogle: false };
  }
}
