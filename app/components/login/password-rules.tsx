import type { PasswordCheck } from "~/auth/firebase-client";

/**
 * The password policy's requirements, as a new password is typed: each says
 * whether it is met in words and with its own mark (✓ or ✗), not by colour
 * alone; a polite status line tells screen readers how far the password has
 * got, without reading the whole list at each key.
 */
export function PasswordRules({ id, checks, typed }: { id: string; checks: PasswordCheck[]; typed: boolean }) {
  return (
    <>
      <ul id={id} className="password-rules" aria-label="Password requirements">
        {checks.map((check) => (
          <li key={check.label} className={check.met ? "met" : "unmet"}>
            <span className="rule-mark" aria-hidden="true">
              {check.met ? "✓" : "✗"}
            </span>{" "}
            {check.label} <span className="rule-state">{check.met ? "(met)" : "(not met yet)"}</span>
          </li>
        ))}
      </ul>
      <p className="visually-hidden" role="status">
        {typed ? rulesSummary(checks) : ""}
      </p>
    </>
  );
}

/** "Password requirements met: 1 of 2. Still needed: A number." or "The password meets every requirement." */
export function rulesSummary(checks: PasswordCheck[]): string {
  if (checks.length === 0) return "";
  const unmet = checks.filter((check) => !check.met);
  if (unmet.length === 0) return "The password meets every requirement.";
  const needed = unmet.map((check) => check.label).join(", ");
  return `Password requirements met: ${checks.length - unmet.length} of ${checks.length}. Still needed: ${needed}.`;
}
