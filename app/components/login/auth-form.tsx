import type { FormEvent, ReactNode } from "react";
import type { Credentials, Typed } from "./use-credentials";
import type { SignIn } from "./use-sign-in";

/**
 * What the sign-in, sign-up and reset forms share: the email field, then the
 * form's own fields (children), the last attempt's error or notice, and the
 * submit button. `onSubmit` receives what the fields hold.
 */
export function AuthForm({
  signIn,
  credentials,
  submitLabel,
  onSubmit,
  children,
}: {
  signIn: SignIn;
  credentials: Credentials;
  submitLabel: string;
  onSubmit: (typed: Typed) => Promise<void>;
  children?: ReactNode;
}) {
  const { error, notice, busy } = signIn;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void onSubmit(credentials.takeTyped(event.currentTarget));
  }

  return (
    // method="post": before the script has loaded, a native submit must not put the password in the URL.
    <form
      className="auth-form"
      method="post"
      onSubmit={submit}
      noValidate
      aria-describedby={error ? "auth-error" : undefined}
    >
      <label htmlFor="email">Email</label>
      <input
        id="email"
        name="email"
        type="email"
        autoComplete="email"
        required
        value={credentials.email}
        onChange={(event) => credentials.setEmail(event.target.value)}
      />
      {children}
      <FormError error={error} />
      {notice ? (
        <p className="form-notice" role="status">
          {notice}
        </p>
      ) : null}
      <button type="submit" className="button primary" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}

/** The last attempt's error; the forms' `aria-describedby` points at its id. */
export function FormError({ error }: { error: string | null }) {
  return error ? (
    <p id="auth-error" className="form-error" role="alert">
      {error}
    </p>
  ) : null;
}
