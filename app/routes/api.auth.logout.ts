import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { safeRedirect } from "~/auth/redirect";
import { isUserInitiatedSameSite } from "~/auth/request.server";
import { destroySession } from "~/auth/session.server";
import { apiRoute } from "~/http/api-route.server";
import { BODY_LIMITS, parseForm, requireBodyWithin } from "~/http/body-limit.server";

/**
 * /api/auth/logout destroys the session. POST always; GET only when the user
 * asked for it on this site (or typed it) and it is not a prefetch, so that a
 * link or image on another site cannot sign anyone out.
 */
async function logout(request: Request, redirectTo: unknown) {
  const setCookie = await destroySession(request);
  return redirect(safeRedirect(redirectTo), {
    status: 303,
    headers: { "Set-Cookie": setCookie },
  });
}

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  const url = new URL(request.url);
  let redirectTo: unknown = url.searchParams.get("redirectTo");
  const bytes = await requireBodyWithin(request, BODY_LIMITS.small);
  const type = request.headers.get("Content-Type") ?? "";
  // Logging out never fails on a body it cannot read: it only loses the redirectTo.
  if (type.includes("form")) redirectTo = (await parseForm(bytes, type))?.get("redirectTo") ?? redirectTo;
  return logout(request, redirectTo);
});

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  const url = new URL(request.url);
  if (!isUserInitiatedSameSite(request)) return redirect("/", { status: 303 });
  return logout(request, url.searchParams.get("redirectTo"));
});
