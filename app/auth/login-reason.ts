/**
 * Why a visitor is on /login, said in words. The guards' redirect stays
 * exactly `/login?redirectTo=<path>` (relied on outside the team), so the
 * reason is read from the page they were sent from, through this fixed
 * list; nothing the URL carries is ever shown as it is
 * (docs/decisions/060-login-reason-from-redirect.md).
 */
const REASONS: Array<{ prefix: string; reason: string }> = [
  { prefix: "/nuvara", reason: "Log in to use the assistant." },
  { prefix: "/dashboard", reason: "Log in to see your dashboard." },
  { prefix: "/tools/", reason: "Log in to use this tool." },
  { prefix: "/admin", reason: "Log in with an admin account to open the admin area." },
  { prefix: "/s/", reason: "Log in to continue this conversation." },
];

const ANY_OTHER_PAGE = "Log in to continue to the page you opened.";

/** The sentence for a (safe) redirectTo path, or null when the visitor came to /login of their own accord. */
export function loginReason(redirectTo: string): string | null {
  const path = redirectTo.split(/[?#]/, 1)[0];
  if (path === "/" || path === "") return null;
  for (const { prefix, reason } of REASONS) {
    if (prefix.endsWith("/") ? path.startsWith(prefix) : path === prefix || path.startsWith(`${prefix}/`))
      return reason;
  }
  return ANY_OTHER_PAGE;
}

/** Where a brand-new account goes: the page it was sent from, else the assistant (not the home page). */
export function afterSignUp(redirectTo: string): string {
  return redirectTo === "/" ? "/nuvara" : redirectTo;
}
