import { json, redirect, type ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { authErrorMessage } from "~/auth/auth-errors";
import { isSameOrigin } from "~/auth/request.server";
import { sessionHeaders } from "~/auth/session.server";
import { getConfig } from "~/config.server";
import { AccountDeletionError, deleteAccount, isRecentSignIn } from "~/data/account.server";
import { requireAccountUser } from "~/auth/session.server";
import { readBody } from "~/http/forms.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";

/**
 * POST /api/account/delete: deletes the account and all of its data, after
 * the user typed their email address to confirm, and only with a sign-in of
 * the last five minutes (ADR 030, requires-recent-login: 401 with
 * `reauth: true`, and the dashboard asks the user to sign in again).
 */
const NO_STORE = { "Cache-Control": "no-store" };

const confirmSchema = z.object({
  confirm: z
    .string({ error: "Type your email address to confirm." })
    .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE)
    .trim()
    .max(320),
});

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (!isSameOrigin(request))
    return json({ error: "Cross-origin requests are refused." }, { status: 403, headers: NO_STORE });
  const { user, authTime } = await requireAccountUser(request);
  const body = await readBody(request, BODY_LIMITS.small);
  if ("refusal" in body) return body.refusal;

  const parsed = confirmSchema.safeParse(body.fields);
  const typed = parsed.success ? parsed.data.confirm.toLowerCase() : "";
  if (!user.email || typed !== user.email.toLowerCase()) {
    const message =
      typed === ""
        ? "Type your email address to confirm."
        : "That is not your email address. Type it exactly to confirm.";
    return json({ fieldErrors: { confirm: message } }, { status: 400, headers: NO_STORE });
  }
  if (!isRecentSignIn(authTime)) {
    return json(
      { reauth: true, error: authErrorMessage({ code: "auth/requires-recent-login" }) },
      { status: 401, headers: NO_STORE },
    );
  }

  try {
    const db = await withDeadline("postgres", getConfig().backendTimeoutMs, getDb());
    await deleteAccount(db, { uid: user.uid, email: user.email });
  } catch (error) {
    logBackendFault("account", "deleting an account", error);
    const message =
      error instanceof AccountDeletionError
        ? error.message
        : "Your account could not be deleted right now; nothing was deleted. Please try again shortly.";
    return json({ error: message }, { status: 503, headers: NO_STORE });
  }
  // The identity is gone, so every cookie of it is refused; this one is cleared now.
  const cleared = sessionHeaders({ status: "signed-out", clearCookie: true, degraded: false });
  return redirect("/dashboard/deleted", { status: 303, headers: { ...NO_STORE, ...cleared } });
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
