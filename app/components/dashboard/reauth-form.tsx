import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import type { User } from "firebase/auth";
import { authErrorMessage } from "~/auth/auth-errors";
import type { PublicFirebaseConfig } from "~/auth/firebase-client";

/**
 * "Confirm it's you": signs in again (password, or Google for accounts
 * without one), which also renews this browser's session with a sign-in of
 * now, then runs `onConfirmed` with the signed-in client user. The Firebase
 * SDK loads on submit, not with the page.
 */
export function ReauthForm({
  firebase,
  email,
  hasPassword,
  hasGoogle,
  intro,
  submitLabel,
  onConfirmed,
  onCancel,
}: {
  firebase: PublicFirebaseConfig;
  email: string;
  hasPassword: boolean;
  hasGoogle: boolean;
  intro: string;
  submitLabel: string;
  onConfirmed: (user: User) => Promise<void>;
  onCancel?: () => void;
}) {
  const id = useId();
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const passwordRef = useRef<HTMLInputElement>(null);
  // The form opens when the user asks for an action that needs it: the cursor goes where they type next.
  useEffect(() => passwordRef.current?.focus(), []);

  async function confirm(method: { kind: "password"; email: string; password: string } | { kind: "google" }) {
    setError(null);
    setBusy(true);
    try {
      const { confirmIdentity } = await import("./identity-client");
      await confirmIdentity(firebase, method, onConfirmed);
    } catch (caught) {
      // Our own errors (the session endpoint's refusal) carry a message; the SDK's carry a code.
      setError(caught instanceof Error && !("code" in caught) ? caught.message : authErrorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void confirm({ kind: "password", email, password });
  }

  return (
    <div className="reauth" role="group" aria-labelledby={`${id}-intro`}>
      <p id={`${id}-intro`}>{intro}</p>
      {hasPassword ? (
        <form className="auth-form" onSubmit={onSubmit} noValidate>
          <label htmlFor={`${id}-password`}>Your current password</label>
          <input
            ref={passwordRef}
            id={`${id}-password`}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
          />
          <p className="actions">
            <button type="submit" className="button primary" disabled={busy || password === ""}>
              {busy ? "Checking…" : submitLabel}
            </button>
            {onCancel ? (
              <button type="button" className="button" onClick={onCancel} disabled={busy}>
                Cancel
              </button>
            ) : null}
          </p>
        </form>
      ) : null}
      {hasGoogle ? (
        <p>
          <button type="button" className="button" onClick={() => void confirm({ kind: "google" })} disabled={busy}>
            {hasPassword ? "Or confirm with Google" : "Confirm with Google"}
          </button>
        </p>
      ) : null}
      {!hasPassword && !hasGoogle ? <p>Log out, log in again, and come back here within five minutes.</p> : null}
      {error ? (
        <p id={`${id}-error`} className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
