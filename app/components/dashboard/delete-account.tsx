import { useFetcher } from "@remix-run/react";
import { useId, useRef, useState } from "react";
import type { PublicFirebaseConfig } from "~/auth/firebase-client";
import { ReauthForm } from "./reauth-form";

export interface DeleteAccountResult {
  error?: string;
  /** The sign-in is too old: confirm it's you, then the deletion goes on. */
  reauth?: boolean;
  fieldErrors?: { confirm?: string };
}

/**
 * Delete account: a confirmation (typing the email address), and a recent
 * sign-in (the identity service's requires-recent-login, ADR 030) — when the
 * session's sign-in is older than five minutes the server says so, the user
 * signs in again here, and the deletion continues with what they confirmed.
 */
export function DeleteAccount({
  email,
  firebase,
  hasPassword,
  hasGoogle,
}: {
  email: string;
  firebase: PublicFirebaseConfig;
  hasPassword: boolean;
  hasGoogle: boolean;
}) {
  const id = useId();
  const fetcher = useFetcher<DeleteAccountResult>();
  const formRef = useRef<HTMLFormElement>(null);
  const [open, setOpen] = useState(false);
  const result = fetcher.state === "idle" ? fetcher.data : undefined;
  const busy = fetcher.state !== "idle";

  if (!open) {
    return (
      <button type="button" className="button danger" onClick={() => setOpen(true)}>
        Delete account…
      </button>
    );
  }

  return (
    <div className="confirm-panel" role="group" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Delete your account?</h3>
      <p>
        This deletes your account and everything in it, for good: your conversations and their messages, your usage
        history, your preferences and the messages you sent us. It cannot be undone. You may want to download your data
        first.
      </p>
      <fetcher.Form ref={formRef} method="post" action="/api/account/delete" className="auth-form" noValidate>
        <label htmlFor={`${id}-confirm`}>To confirm, type your email address ({email})</label>
        <input
          id={`${id}-confirm`}
          name="confirm"
          type="email"
          autoComplete="off"
          required
          aria-invalid={result?.fieldErrors?.confirm ? true : undefined}
          aria-describedby={result?.fieldErrors?.confirm ? `${id}-confirm-error` : undefined}
        />
        {result?.fieldErrors?.confirm ? (
          <p id={`${id}-confirm-error`} className="form-error">
            {result.fieldErrors.confirm}
          </p>
        ) : null}
        {result?.reauth ? null : (
          <p className="actions">
            <button type="submit" className="button danger" disabled={busy}>
              {busy ? "Deleting…" : "Delete my account"}
            </button>
            <button type="button" className="button" onClick={() => setOpen(false)} disabled={busy}>
              Cancel
            </button>
          </p>
        )}
      </fetcher.Form>
      {result?.reauth ? (
        <ReauthForm
          firebase={firebase}
          email={email}
          hasPassword={hasPassword}
          hasGoogle={hasGoogle}
          intro={result.error ?? "For your security, please log in again to continue."}
          submitLabel="Confirm and delete my account"
          // The session now has a sign-in of now: send what was confirmed again.
          onConfirmed={async () => fetcher.submit(formRef.current)}
          onCancel={() => setOpen(false)}
        />
      ) : null}
      {result?.error && !result.reauth ? (
        <p className="form-error" role="alert">
          {result.error}
        </p>
      ) : null}
    </div>
  );
}
