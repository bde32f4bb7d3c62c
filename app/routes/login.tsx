import { json, redirect, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { useEffect, useState, type FormEvent } from "react";
import { authErrorCode, authErrorMessage, PASSWORD_RULES_UNMET, signsUserOut, UNUSABLE_EMAIL } from "~/auth/auth-errors";
import type { AuthProvider } from "~/settings/auth-providers";
import {
  checkPassword,
  clientAuth,
  clientSignOut,
  sendReset,
  signInForIdToken,
  type PasswordCheck,
  type SignInMethod,
} from "~/auth/firebase-client";
import { afterSignUp, loginReason } from "~/auth/login-reason";
import { safeRedirect } from "~/auth/redirect";
import { canHoldRole } from "~/auth/role-key";
import { getSessionUser, sessionHeaders } from "~/auth/session.server";
import { useSetAuthPending } from "~/components/auth-pending";
import { getConfig } from "~/config.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Sign in");

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const redirectTo = safeRedirect(url.searchParams.get("redirectTo"));
  const state = await getSessionUser(request);
  // A signed-in visitor has nothing to do here.
  if (state.status === "signed-in") throw redirect(redirectTo);
  const config = getConfig();
  return json(
    {
      firebase: config.publicFirebase,
      redirectTo,
      reason: loginReason(redirectTo),
      localMode: config.mode === "local",
      providers: config.authProviders,
    },
    { headers: sessionHeaders(state) },
  );
}

type Mode = "signin" | "signup" | "reset";

function resetNotice(email: string, localMode: boolean): string {
  return (
    `If an account exists for ${email}, we've sent it a link to reset the password.` +
    (localMode ? " In local mode the Auth emulator prints the link in its log." : "")
  );
}

const TITLES: Record<Mode, string> = {
  signin: "Sign in",
  signup: "Create your account",
  reset: "Reset your password",
};

export default function Login() {
  const { firebase, redirectTo, reason, localMode, providers } = useLoaderData<typeof loader>();
  // Without the password provider there is no form, and so no sign-up or reset either.
  const withPassword = providers.some((provider) => provider.kind === "password");
  const federated = providers.filter((provider) => provider.kind !== "password");
  const [searchParams] = useSearchParams();
  const initialMode = withPassword ? searchParams.get("mode") : null;
  const [mode, setMode] = useState<Mode>(initialMode === "signup" || initialMode === "reset" ? initialMode : "signin");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [showPassword, setShowPassword] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The policy's checks and the password they were made for: they arrive a moment after the typing.
  const [checked, setChecked] = useState<{ password: string; checks: PasswordCheck[] }>({ password: "", checks: [] });
  const checks = checked.checks;
  const setPending = useSetAuthPending();

  // Ready before the first click: a popup must open within the click's user activation.
  useEffect(() => {
    void clientAuth(firebase);
  }, [firebase]);

  // The password policy, shown as the user types a new password.
  useEffect(() => {
    if (mode !== "signup") return;
    let current = true;
    clientAuth(firebase)
      .then((auth) => checkPassword(auth, password))
      .then((result) => current && setChecked({ password, checks: result }));
    return () => {
      current = false;
    };
  }, [mode, password, firebase]);

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
        setError(body?.error ?? "Sign-in didn't work. Please try again.");
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

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // What the fields hold, not only the state: text typed before the page
    // finished loading (hydration) never reached onChange.
    const typed = new FormData(event.currentTarget);
    const typedEmail = String(typed.get("email") ?? email).trim();
    const typedPassword = String(typed.get("password") ?? password);
    setEmail(typedEmail);
    setPassword(typedPassword);
    setError(null);
    setNotice(null);
    setBusy(true);
    try {
      if (mode === "reset") {
        const auth = await clientAuth(firebase);
        try {
          await sendReset(auth, typedEmail);
          setNotice(resetNotice(typedEmail, localMode));
        } catch (caught) {
          // No account for the address: the same answer as when there is one.
          if (authErrorCode(caught) === "auth/user-not-found") setNotice(resetNotice(typedEmail, localMode));
          else setError(authErrorMessage(caught));
        }
        return;
      }
      // Refused before an account is made: the session endpoint would refuse it after (docs/decisions/075).
      if (mode === "signup" && !canHoldRole(typedEmail.toLowerCase())) {
        setError(UNUSABLE_EMAIL);
        return;
      }
      if (mode === "signup") {
        const current =
          // Checks made for another (earlier) password do not count: a quick submit checks this one now.
          typedPassword === checked.password && checks.length > 0 ? checks : await checkPassword(await clientAuth(firebase), typedPassword);
        if (current.some((check) => !check.met)) {
          setError(PASSWORD_RULES_UNMET);
          return;
        }
      }
      await finishSignIn({ kind: mode === "signup" ? "signup" : "password", email: typedEmail, password: typedPassword });
    } finally {
      setBusy(false);
    }
  }

  async function onProvider(provider: AuthProvider) {
    setError(null);
    setNotice(null);
    setBusy(true);
    try {
      await finishSignIn({ kind: "federated", provider });
    } finally {
      setBusy(false);
    }
  }

  function switchMode(next: Mode) {
    setMode(next);
    setError(null);
    setNotice(null);
  }

  return (
    <div className="page auth-page">
      <h1>{TITLES[mode]}</h1>
      {reason && mode !== "reset" ? <p className="login-reason">{reason}</p> : null}
      {withPassword ? (
        // method="post": before the script has loaded, a native submit must not put the password in the URL.
        <form
          className="auth-form"
          method="post"
          onSubmit={onSubmit}
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
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
          {mode !== "reset" ? (
            <>
              <label htmlFor="password">Password</label>
              <div className="password-field">
                <input
                  id="password"
                  name="password"
                  type={showPassword ? "text" : "password"}
                  autoComplete={mode === "signup" ? "new-password" : "current-password"}
                  required
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                  aria-describedby={mode === "signup" ? "password-rules" : undefined}
                />
                {/* A toggle with a fixed name: its pressed state says whether the password shows. */}
                <button
                  type="button"
                  className="button small password-toggle"
                  aria-pressed={showPassword}
                  aria-controls="password"
                  onClick={() => setShowPassword((shown) => !shown)}
                >
                  Show password
                </button>
              </div>
            </>
          ) : null}
          {mode === "signup" ? (
            <ul id="password-rules" className="password-rules" aria-label="Password requirements">
              {checks.map((check) => (
                <li key={check.label} className={check.met ? "met" : "unmet"}>
                  <span aria-hidden="true">{check.met ? "✓" : "•"}</span> {check.label}
                  <span className="visually-hidden">{check.met ? " (met)" : " (not met yet)"}</span>
                </li>
              ))}
            </ul>
          ) : null}
          {error ? (
            <p id="auth-error" className="form-error" role="alert">
              {error}
            </p>
          ) : null}
          {notice ? (
            <p className="form-notice" role="status">
              {notice}
            </p>
          ) : null}
          <button type="submit" className="button primary" disabled={busy}>
            {mode === "signin" ? "Sign in" : mode === "signup" ? "Create account" : "Send reset link"}
          </button>
        </form>
      ) : error ? (
        <p id="auth-error" className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {mode !== "reset"
        ? federated.map((provider) => (
            <button
              key={provider.id}
              type="button"
              className={provider.kind === "google" ? "button google" : "button sso"}
              onClick={() => void onProvider(provider)}
              disabled={busy}
            >
              Continue with {provider.name}
            </button>
          ))
        : null}
      {withPassword ? (
        <p className="auth-switch">
          {mode !== "signin" ? (
            <button type="button" className="link-button" onClick={() => switchMode("signin")}>
              Have an account? Sign in
            </button>
          ) : (
            <button type="button" className="link-button" onClick={() => switchMode("signup")}>
              New here? Create an account
            </button>
          )}
          {mode !== "reset" ? (
            <button type="button" className="link-button" onClick={() => switchMode("reset")}>
              Forgot your password?
            </button>
          ) : null}
        </p>
      ) : null}
      <p className="fine-print">
        <Link to="/">Back to the home page</Link>
      </p>
    </div>
  );
}
