import { authErrorCode, authErrorMessage } from "~/auth/auth-errors";
import { sendReset } from "~/auth/firebase-client";
import { AuthForm } from "./auth-form";
import type { Credentials, Typed } from "./use-credentials";
import type { SignIn } from "./use-sign-in";

function resetNotice(email: string, localMode: boolean): string {
  return (
    `If an account exists for ${email}, we've sent it a link to reset the password.` +
    (localMode ? " In local mode the Auth emulator prints the link in its log." : "")
  );
}

/** A password reset link, sent to the email typed. */
export function ResetForm({
  signIn,
  credentials,
  localMode,
}: {
  signIn: SignIn;
  credentials: Credentials;
  localMode: boolean;
}) {
  async function onSubmit(typed: Typed) {
    signIn.start();
    try {
      const auth = await signIn.auth();
      try {
        await sendReset(auth, typed.email);
        signIn.setNotice(resetNotice(typed.email, localMode));
      } catch (caught) {
        // No account for the address: the same answer as when there is one.
        if (authErrorCode(caught) === "auth/user-not-found") signIn.setNotice(resetNotice(typed.email, localMode));
        else signIn.setError(authErrorMessage(caught));
      }
    } finally {
      signIn.setBusy(false);
    }
  }

  return <AuthForm signIn={signIn} credentials={credentials} submitLabel="Send reset link" onSubmit={onSubmit} />;
}
