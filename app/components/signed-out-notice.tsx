import { useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";

/**
 * "You're signed out", on the page Logout lands on (the home page). Logout's
 * redirect stays exactly `/` (ADR 060), so the nav's Logout form leaves a
 * note in this tab's sessionStorage and the landing page reads it once. A note
 * older than a minute is stale (a logout that never landed) and says nothing.
 */
const KEY = "nuvara:signed-out";
const FRESH_MS = 60_000;

export function markSignedOut() {
  try {
    sessionStorage.setItem(KEY, String(Date.now()));
  } catch {
    // Storage can be switched off: the sign-out itself still happens.
  }
}

function takeNote(): boolean {
  try {
    const at = Number(sessionStorage.getItem(KEY));
    sessionStorage.removeItem(KEY);
    return at > 0 && Date.now() - at < FRESH_MS;
  } catch {
    return false;
  }
}

export function SignedOutNotice({ signedIn }: { signedIn: boolean }) {
  const location = useLocation();
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (signedIn) setShown(false);
    else if (takeNote()) setShown(true);
  }, [location.key, signedIn]);
  // The live region is always there, so the message is announced when it appears.
  return (
    <div role="status" className="signed-out-status">
      {shown ? <p className="page-notice">You're logged out. Log in again whenever you like.</p> : null}
    </div>
  );
}
