import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { safeRedirect } from "~/auth/redirect";
import { isUserInitiatedSameSite } from "~/auth/request.server";
import { destroySession } from "~/auth/session.server";

/**
 * /api/auth/logout destroys the session. POST always; GET only when the user
 * asked for it on this site (or typed it) and it is not a prefetch, so that a
 * link or image on another site cannot sign anyone out.
 */
async function logout(request: Request, redirectTo: unknown) {
  const setCookie = await destroySession(request);
  return redirect(safeRedirect(redirectTo), {
    status: 303,
    headers: { "Set-Cookie": setCookie, "Cache-Control": "no-store" },
  });
}

export async function action({ request }: ActionFunctionArgs) {
  const url = new URL(request.url);
  let redirectTo: unknown = url.searchParams.get("redirectTo");
  if ((request.headers.get("Content-Type") ?? "").includes("form")) {
    const form = await request.formData().catch(() => null);
    redirectTo = form?.get("redirectTo") ?? redirectTo;
  }
  return logout(request, redirectTo);
}

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  if (!isUserInitiatedSameSite(request)) {
    return redirect("/", { status: 303, headers: { "Cache-Control": "no-store" } });
  }
  return logout(request, url.searchParams.get("redirectTo"));
}
