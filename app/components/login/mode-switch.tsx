import type { LoginMode } from "./use-login-mode";

/** The links between the sign-in, sign-up and reset forms. */
export function ModeSwitch({ mode, onSwitch }: { mode: LoginMode; onSwitch: (next: LoginMode) => void }) {
  return (
    <p className="auth-switch">
      {/* One place for the first link in every mode: React keeps its button, and the focus on it, when its label changes. */}
      {mode !== "signin" ? (
        <button type="button" className="link-button" onClick={() => onSwitch("signin")}>
          Have an account? Log in
        </button>
      ) : (
        <button type="button" className="link-button" onClick={() => onSwitch("signup")}>
          New here? Create an account
        </button>
      )}
      {mode !== "reset" ? (
        <button type="button" className="link-button" onClick={() => onSwitch("reset")}>
          Forgot your password?
        </button>
      ) : null}
    </p>
  );
}
