import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { isSameOrigin } from "~/auth/request.server";
import { planName } from "~/components/dashboard/plan";
import { getConfig } from "~/config.server";
import { exportAccountData, getAccountDetails } from "~/data/account.server";
import { requireAccountUser } from "~/auth/session.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";
import { BODY_LIMITS, requireBodyWithin } from "~/http/body-limit.server";

/**
 * POST /api/account/export: everything the product holds about the signed-in
 * user, as a JSON file to download. A POST (not a link) so that no other site
 * can make a browser fetch it, and no prefetch runs it.
 */
const NO_STORE = { "Cache-Control": "no-store" };

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (!isSameOrigin(request))
    return new Response("Cross-origin requests are refused.", { status: 403, headers: NO_STORE });
  const { user, role } = await requireAccountUser(request);
  // The form carries only its button, but what it accepts is bounded all the same.
  await requireBodyWithin(request, BODY_LIMITS.small);
  const now = new Date();
  let body: string;
  try {
    const [account, db] = await Promise.all([
      getAccountDetails(user.uid),
      withDeadline("postgres", getConfig().backendTimeoutMs, getDb()),
    ]);
    body = JSON.stringify(await exportAccountData(db, account, { role, plan: planName(role) }, now), null, 2);
  } catch (error) {
    logBackendFault("account", "exporting a user's data", error);
    // The form is a document post: back to the dashboard, which says what happened.
    return redirect("/dashboard?export=failed#your-data", { status: 303, headers: NO_STORE });
  }
  return new Response(body, {
    headers: {
      ...NO_STORE,
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="nuvara-data-${now.toISOString().slice(0, 10)}.json"`,
    },
  });
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
