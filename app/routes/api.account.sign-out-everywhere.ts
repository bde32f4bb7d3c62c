import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { isSameOrigin } from "~/auth/request.server";
import { destroySession } from "~/auth/session.server";
import { requireAccountUser, revokeAllSessions } from "~/data/account.server";
import { logBackendFault } from "~/deadline.server";

/**
 * POST /api/account/sign-out-everywhere: revokes every session of the user
 * (the identity service's refresh-token revocation) and ends this one.
 * Unlike logout, a failure to revoke is not swallowed: the user is told, and
 * stays signed in here to try again.
 */
const NO_STORE = { "Cache-Control": "no-store" };

export async function action({ request }: ActionFunctionArgs) {
  if (!isSameOrigin(request)) return new Response("Cross-origin requests are refused.", { status: 403, headers: NO_STORE });
  const { user } = await requireAccountUser(request);
  try {
    await revokeAllSessions(user.uid, user.email);
  } catch (error) {
    logBackendFault("identity", "revoking a user's sessions", error);
    return redirect("/dashboard?signout=failed#your-data", { status: 303, headers: NO_STORE });
  }
  const setCookie = await destroySession(request);
  return redirect("/", { status: 303, headers: { ...NO_STORE, "Set-Cookie": setCookie } });
}

export function loader() {
  return new Response("Use POST.", { status: 405, headers: { ...NO_STORE, Allow: "POST" } });
}
