import { json } from "@remix-run/node";
import { getSessionUser, sessionHeaders, type SignedIn } from "~/auth/session.server";
import { getDb, type Db } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";

/**
 * The preconditions of a JSON API that acts for the signed-in user, as
 * values rather than throws (the handlers return them as they are): the
 * fresh session, or 401 (clearing a dead cookie) / 503 (it can't be checked);
 * the database, or 503 with the caller's words.
 */
export async function apiSignedIn(request: Request): Promise<SignedIn | Response> {
  const session = await getSessionUser(request);
  if (session.status === "signed-in" && !session.degraded) return session;
  if (session.degraded)
    return json({ error: "Login can't be checked right now. Please try again shortly." }, { status: 503 });
  return json({ error: "Please log in." }, { status: 401, headers: sessionHeaders(session) });
}

export async function apiDatabase(purpose: string, unavailable: () => Response): Promise<Db | Response> {
  try {
    return await getDb();
  } catch (error) {
    logBackendFault("postgres", `opening the database for ${purpose}`, error);
    return unavailable();
  }
}
