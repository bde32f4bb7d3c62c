import { PASSWORD_RULES_UNMET, UNUSABLE_EMAIL } from "~/auth/auth-errors";
import { checkPassword } from "~/auth/firebase-client";
import { canHoldRole } from "~/auth/role-key";
import { AuthForm } from "./auth-form";
import { PasswordField } from "./password-field";
import { PasswordRules } from "./password-rules";
import type { Credentials, Typed } from "./use-credentials";
import { checksFor, type CheckedPassword } from "./use-password-checks";
import type { SignIn } from "./use-sign-in";

/** A new account: an email and a password that meets the project's password policy, listed as it is typed. */
export function SignUpForm({
  signIn,
  credentials,
  checked,
}: {
  signIn: SignIn;
  credentials: Credentials;
  checked: CheckedPassword;
}) {
  async function onSubmit(typed: Typed) {
    signIn.start();
    try {
      // Refused before an account is made: the session endpoint would refuse it after (docs/decisions/075).
      if (!canHoldRole(typed.email.toLowerCase())) {
        signIn.setError(UNUSABLE_EMAIL);
        return;
      }
      // A quick submit, before the checks for this password have arrived, checks it now.
      const current = checksFor(checked, typed.password) ?? (await checkPassword(await signIn.auth(), typed.password));
      if (current.some((check) => !check.met)) {
        signIn.setError(PASSWORD_RULES_UNMET);
        return;
      }
      await signIn.finishSignIn({ kind: "signup", email: typed.email, password: typed.password });
    } finally {
      signIn.setBusy(false);
    }
  }

  return (
    <AuthForm signIn={signIn} credentials={credentials} submitLabel="Create account" onSubmit={onSubmit}>
      <PasswordField credentials={credentials} autoComplete="new-password" describedBy="password-rules" />
      <PasswordRules id="password-rules" checks={checked.checks} typed={checked.password !== ""} />
    </AuthForm>
  );
}
