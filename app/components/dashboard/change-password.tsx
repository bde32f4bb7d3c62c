import { useRevalidator } from "@remix-run/react";
import { useEffect, useId, useState, type FormEvent } from "react";
import { authErrorMessage, PASSWORD_RULES_UNMET } from "~/auth/auth-errors";
import type { PasswordCheck, PublicFirebaseConfig } from "~/auth/firebase-client";
import { useHydrated } from "~/components/chat/use-hydrated";
import { PasswordRules } from "~/components/login/password-rules";

/**
 * Change password: the current password first (re-authentication, ADR 030:
 * requires-recent-login), then the new one against the project's password
 * policy. Runs in the browser with the Firebase SDK, loaded on first use.
 */
export function ChangePassword({ firebase, email }: { firebase: PublicFirebaseConfig; email: string }) {
  const id = useId();
  const revalidator = useRevalidator();
  const [open, setOpen] = useState(false);
  const hydrated = useHydrated();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [checks, setChecks] = useState<PasswordCheck[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  // The policy's checks as the new password is typed (the SDK loads with the first keystroke).
  useEffect(() => {
    if (!open || next === "") {
      setChecks([]);
      return;
    }
    let live = true;
    import("./identity-client")
      .then(({ newPasswordChecks }) => newPasswordChecks(firebase, next))
      .then((result) => live && setChecks(result))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [open, next, firebase]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    if (next !== repeat) {
      setError("The new passwords don't match.");
      return;
    }
    if (checks.some((check) => !check.met)) {
      setError(PASSWORD_RULES_UNMET);
      return;
    }
    setBusy(true);
    try {
      const { changePassword } = await import("./identity-client");
      await changePassword(firebase, email, current, next);
      setDone(true);
      setOpen(false);
      setCurrent("");
      setNext("");
      setRepeat("");
      revalidator.revalidate();
    } catch (caught) {
      setError(caught instanceof Error && !("code" in caught) ? caught.message : authErrorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  if (!open) {
    return (
      <div>
        {done ? (
          <p className="form-notice" role="status">
            Your password was changed. You're still logged in here; your other devices were logged out.
          </p>
        ) : null}
        {/* It opens a form that needs the page's script: until that runs, a click would do nothing. */}
        <button type="button" className="button" onClick={() => setOpen(true)} disabled={!hydrated}>
          Change password
        </button>
      </div>
    );
  }

  return (
    <form className="auth-form password-form" onSubmit={onSubmit} noValidate aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Change password</h3>
      <label htmlFor={`${id}-current`}>Current password</label>
      <input
        id={`${id}-current`}
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onChange={(event) => setCurrent(event.target.value)}
      />
      <label htmlFor={`${id}-next`}>New password</label>
      <input
        id={`${id}-next`}
        type="password"
        autoComplete="new-password"
        required
        value={next}
        onChange={(event) => setNext(event.target.value)}
        aria-describedby={`${id}-rules`}
      />
      <PasswordRules id={`${id}-rules`} checks={checks} typed={next !== ""} />
      <label htmlFor={`${id}-repeat`}>New password again</label>
      <input
        id={`${id}-repeat`}
        type="password"
        autoComplete="new-password"
        required
        value={repeat}
        onChange={(event) => setRepeat(event.target.value)}
      />
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <p className="actions">
        <button type="submit" className="button primary" disabled={busy || current === "" || next === ""}>
          {busy ? "Changing…" : "Change password"}
        </button>
        <button type="button" className="button" onClick={() => setOpen(false)} disabled={busy}>
          Cancel
        </button>
      </p>
      <p className="fine-print">Changing your password signs you out on every other device.</p>
    </form>
  );
}
