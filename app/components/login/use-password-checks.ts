import { useEffect, useState } from "react";
import { checkPassword, clientAuth, type PasswordCheck, type PublicFirebaseConfig } from "~/auth/firebase-client";

/** The policy's checks and the password they were made for: they arrive a moment after the typing. */
export interface CheckedPassword {
  password: string;
  checks: PasswordCheck[];
}

/**
 * The password policy, checked as the user types a new password (while
 * `active`: the sign-up form shows). Held by the page, so a return to the
 * sign-up form shows the last checks at once.
 */
export function usePasswordChecks(firebase: PublicFirebaseConfig, password: string, active: boolean): CheckedPassword {
  const [checked, setChecked] = useState<CheckedPassword>({ password: "", checks: [] });

  useEffect(() => {
    if (!active) return;
    let current = true;
    clientAuth(firebase)
      .then((auth) => checkPassword(auth, password))
      .then((result) => current && setChecked({ password, checks: result }));
    return () => {
      current = false;
    };
  }, [active, password, firebase]);

  return checked;
}

/** The checks if they were made for `password`, else null: checks made for another (earlier) password do not count. */
export function checksFor(checked: CheckedPassword, password: string): PasswordCheck[] | null {
  return password === checked.password && checked.checks.length > 0 ? checked.checks : null;
}
