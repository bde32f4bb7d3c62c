import type { Credentials } from "./use-credentials";

/** The password field of the sign-in and sign-up forms, with its show-password toggle. */
export function PasswordField({
  credentials,
  autoComplete,
  describedBy,
}: {
  credentials: Credentials;
  autoComplete: "current-password" | "new-password";
  describedBy?: string;
}) {
  const { password, setPassword, showPassword, setShowPassword } = credentials;
  return (
    <>
      <label htmlFor="password">Password</label>
      <div className="password-field">
        <input
          id="password"
          name="password"
          type={showPassword ? "text" : "password"}
          autoComplete={autoComplete}
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          aria-describedby={describedBy}
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
  );
}
