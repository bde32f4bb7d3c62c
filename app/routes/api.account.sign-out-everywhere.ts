import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { isSameOrigin } from "~/auth/request.server";
import { publishInvalidation } from "~/auth/invalidation.server";
import { destroySession, requireAccountUser } from "~/auth/session.server";
import { revokeAllSessions } from "~/data/account.server";
import { forgetPushDevices } from "~/chat/notify/sign-out.server";
import { logBackendFault } from "~/deadline.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";
import { BODY_LIMITS, requireBodyWithin } from "~/http/body-limit.server";

/**
 * POST /api/account/sign-out-everywhere: revokes every session of the user
 * (the identity service's refresh-token revocation) and ends this one.
 * Unlike logout, a failure to revoke is not swallowed: the user is told, and
 * stays signed in here to try again. Every device told about replies is
 * forgotten too.
 */
const NO_STORE = { "Cache-Control": "no-store" };

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (!isSameOrigin(request))
    return new Response("Cross-origin requests are refused.", { status: 403, headers: NO_STORE });
  const { user } = await requireAccountUser(request);
  // The form carries only its button, but what it accepts is bounded all the same.
  await requireBodyWithin(request, BODY_LIMITS.small);
  try {
    await revokeAllSessions(user.uid, user.email);
  } catch (error) {
    logBackendFault("identity", "revoking a user's sessions", error);
    return redirect("/dashboard?signout=failed#your-data", { status: 303, headers: NO_STORE });
  }
  // No device of theirs goes on showing their chats' titles (docs/decisions/101).
  await forgetPushDevices(user.uid);
  // Other instances drop what they cached of the account at once.
  await publishInvalidation({ uid: user.uid, email: user.email ?? undefined, reason: "sign-out-everywhere" });
  const setCookie = await destroySession(request);
  return redirect("/", { status: 303, headers: { ...NO_STORE, "Set-Cookie": setCookie } });
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
