import type { AuthProvider } from "~/settings/auth-providers";
import type { SignIn } from "./use-sign-in";

/** A "Continue with …" button for each configured provider other than the password (docs/decisions/053). */
export function ProviderButtons({ providers, signIn }: { providers: AuthProvider[]; signIn: SignIn }) {
  async function onProvider(provider: AuthProvider) {
    signIn.start();
    try {
      await signIn.finishSignIn({ kind: "federated", provider });
    } finally {
      signIn.setBusy(false);
    }
  }

  return (
    <>
      {providers.map((provider) => (
        <button
          key={provider.id}
          type="button"
          className={provider.kind === "google" ? "button google" : "button sso"}
          onClick={() => void onProvider(provider)}
          disabled={signIn.busy}
        >
          Continue with {provider.name}
        </button>
      ))}
    </>
  );
}
