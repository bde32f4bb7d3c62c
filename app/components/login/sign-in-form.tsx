import { AuthForm } from "./auth-form";
import { PasswordField } from "./password-field";
import type { Credentials, Typed } from "./use-credentials";
import type { SignIn } from "./use-sign-in";

/** Sign-in with an email and password. */
export function SignInForm({ signIn, credentials }: { signIn: SignIn; credentials: Credentials }) {
  async function onSubmit(typed: Typed) {
    signIn.start();
    try {
      await signIn.finishSignIn({ kind: "password", email: typed.email, password: typed.password });
    } finally {
      signIn.setBusy(false);
    }
  }

  return (
    <AuthForm signIn={signIn} credentials={credentials} submitLabel="Log in" onSubmit={onSubmit}>
      <PasswordField credentials={credentials} autoComplete="current-password" />
    </AuthForm>
  );
}
