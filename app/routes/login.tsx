import { json, redirect, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { loginReason } from "~/auth/login-reason";
import { safeRedirect } from "~/auth/redirect";
import { getSessionUser, sessionHeaders } from "~/auth/session.server";
import { FormError } from "~/components/login/auth-form";
import { ModeSwitch } from "~/components/login/mode-switch";
import { ProviderButtons } from "~/components/login/provider-buttons";
import { ResetForm } from "~/components/login/reset-form";
import { SignInForm } from "~/components/login/sign-in-form";
import { SignUpForm } from "~/components/login/sign-up-form";
import { useCredentials } from "~/components/login/use-credentials";
import { useLoginMode, type LoginMode } from "~/components/login/use-login-mode";
import { usePasswordChecks } from "~/components/login/use-password-checks";
import { useSignIn } from "~/components/login/use-sign-in";
import { getConfig } from "~/config.server";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => pageTitle("Log in");

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

const TITLES: Record<LoginMode, string> = {
  signin: "Log in",
  signup: "Create your account",
  reset: "Reset your password",
};

export default function Login() {
  const { firebase, redirectTo, reason, localMode, providers } = useLoaderData<typeof loader>();
  // Without the password provider there is no form, and so no sign-up or reset either.
  const withPassword = providers.some((provider) => provider.kind === "password");
  const federated = providers.filter((provider) => provider.kind !== "password");
  const [mode, setMode] = useLoginMode(withPassword);
  const signIn = useSignIn(firebase, redirectTo);
  const credentials = useCredentials();
  const checked = usePasswordChecks(firebase, credentials.password, mode === "signup");

  function switchMode(next: LoginMode) {
    setMode(next);
    signIn.clear();
  }

  return (
    <div className="page auth-page">
      <h1>{TITLES[mode]}</h1>
      {reason && mode !== "reset" ? <p className="login-reason">{reason}</p> : null}
      {!withPassword ? (
        <FormError error={signIn.error} />
      ) : mode === "signin" ? (
        <SignInForm signIn={signIn} credentials={credentials} />
      ) : mode === "signup" ? (
        <SignUpForm signIn={signIn} credentials={credentials} checked={checked} />
      ) : (
        <ResetForm signIn={signIn} credentials={credentials} localMode={localMode} />
      )}
      {mode !== "reset" ? <ProviderButtons providers={federated} signIn={signIn} /> : null}
      {withPassword ? <ModeSwitch mode={mode} onSwitch={switchMode} /> : null}
      <p className="fine-print">
        <Link to="/">Back to the home page</Link>
      </p>
    </div>
  );
}
