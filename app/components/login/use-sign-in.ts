import { useEffect, useState } from "react";
import { authErrorMessage, signsUserOut } from "~/auth/auth-errors";
import {
  clientAuth,
  clientSignOut,
  signInForIdToken,
  type PublicFirebaseConfig,
  type SignInMethod,
} from "~/auth/firebase-client";
import { afterSignUp } from "~/auth/login-reason";
import { useSetAuthPending } from "~/components/auth-pending";

/**
 * The sign-in every login form and provider button ends in (the identity
 * service's sign-in, then its ID token posted to the server's session
 * endpoint), and what the page shows of an attempt: its error or notice, and
 * whether one is running. Held by the page, so a switch between its forms
 * keeps an attempt that is still running.
 */
export function useSignIn(firebase: PublicFirebaseConfig, redirectTo: string) {
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const setPending = useSetAuthPending();

  // Ready before the first click: a popup must open within the click's user activation.
  useEffect(() => {
    void clientAuth(firebase);
  }, [firebase]);

  async function finishSignIn(method: SignInMethod) {
    const auth = await clientAuth(firebase);
    try {
      const idToken = await signInForIdToken(auth, method);
      setPending("signing-in");
      const response = await fetch("/api/auth/session", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ idToken }),
      });
      await clientSignOut(auth);
      if (!response.ok) {
        const body = (await response.json().catch(() => null)) as { error?: string } | null;
        setPending(null);
        setError(body?.error ?? "Logging in didn't work. Please try again.");
        return;
      }
      // A full page load: every page, nav included, is rendered from the new session.
      // A new account starts in the assistant, not on a home page that greets it back.
      window.location.assign(method.kind === "signup" ? afterSignUp(redirectTo) : redirectTo);
    } catch (caught) {
      setPending(null);
      if (signsUserOut(caught)) {
        await clientSignOut(auth);
        await fetch("/api/auth/logout", { method: "POST" }).catch(() => undefined);
      }
      setError(authErrorMessage(caught));
    }
  }

  function clear() {
    setError(null);
    setNotice(null);
  }

  /**
   * A new attempt: the last one's message goes and the buttons wait. Each
   * caller ends it with `setBusy(false)` in its own `finally`, with no extra
   * `await` before it: a refusal found at once (sign-up's checks) then never
   * renders the submit button disabled.
   */
  function start() {
    clear();
    setBusy(true);
  }

  return {
    error,
    setError,
    notice,
    setNotice,
    busy,
    setBusy,
    clear,
    start,
    finishSignIn,
    auth: () => clientAuth(firebase),
  };
}

export type SignIn = ReturnType<typeof useSignIn>;
