import { json, redirect, type ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { acceptsSignIn } from "~/settings/auth-providers";
import { safeRedirect } from "~/auth/redirect";
import { clientAddress, isSameOrigin } from "~/auth/request.server";
import { createSessionCookie, refuseUnusableAddress, SessionError, verifySignInToken } from "~/auth/session.server";
import { getConfig } from "~/config.server";
import { hitRateLimits, secondsInWords } from "~/data/rate-limits.server";
import { getDb } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { apiRoute } from "~/http/api-route.server";
import { BODY_LIMITS, bodyTooLarge, readCapped } from "~/http/body-limit.server";

/** POST /api/auth/session: a fresh Firebase ID token in, the `__session` cookie out. */

const bodySchema = z.object({
  idToken: z.string({ error: "idToken is required." }).min(1, "idToken is required.").max(8192, "idToken is too long."),
  redirectTo: z.string().optional(),
});

function problem(status: number, error: string, headers?: HeadersInit, code?: string) {
  return json(code ? { error, code } : { error }, { status, headers: { "Cache-Control": "no-store", ...headers } });
}

async function readBody(
  request: Request,
): Promise<{ isJson: boolean; body: unknown; refusal?: undefined } | { refusal: Response }> {
  const isJson = (request.headers.get("Content-Type") ?? "").includes("application/json");
  const bytes = await readCapped(request, BODY_LIMITS.session);
  if (!bytes) return { refusal: bodyTooLarge(BODY_LIMITS.session) };
  const text = new TextDecoder().decode(bytes);
  if (!isJson) return { isJson, body: Object.fromEntries(new URLSearchParams(text)) };
  try {
    return { isJson, body: JSON.parse(text) };
  } catch {
    return { refusal: problem(400, "The request body is not valid JSON.") };
  }
}

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return problem(405, "Use POST.", { Allow: "POST" });
  if (!isSameOrigin(request)) return problem(403, "Cross-origin login requests are refused.");

  const read = await readBody(request);
  if (read.refusal) return read.refusal;
  const { isJson, body } = read;
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success) return problem(400, parsed.error.issues[0]?.message ?? "Bad request.");
  const { idToken, redirectTo } = parsed.data;

  let setCookie: string;
  try {
    const decoded = await verifySignInToken(idToken);
    // Only the methods AUTH_PROVIDERS lists (ADR 053), whatever else the Firebase project allows.
    if (!acceptsSignIn(getConfig().authProviders, decoded.firebase?.sign_in_provider)) {
      return problem(403, "This login method is not offered here. Please use one of those on the login page.");
    }
    await refuseUnusableAddress(request, decoded);
    const limited = await checkRateLimits(request, decoded.uid, decoded.email);
    if (limited) return limited;
    setCookie = await createSessionCookie(idToken, decoded);
  } catch (error) {
    if (error instanceof SessionError) return problem(error.status, error.message, undefined, error.code);
    throw error;
  }

  const headers = { "Set-Cookie": setCookie, "Cache-Control": "no-store" };
  if (isJson) return new Response(null, { status: 204, headers });
  return redirect(safeRedirect(redirectTo), { status: 303, headers });
});

export const loader = apiRoute(() => problem(405, "Use POST.", { Allow: "POST" }));

/** Per account, per email address, and per client address where the proxy tells it; counts in PostgreSQL. */
async function checkRateLimits(
  request: Request,
  uid: string,
  email: string | undefined,
): Promise<Response | undefined> {
  const limit = getConfig().sessionRateLimitPerMinute;
  const rules = [{ key: `session:uid:${uid}`, limit }];
  if (email) rules.push({ key: `session:email:${email.toLowerCase()}`, limit });
  const address = clientAddress(request);
  if (address) rules.push({ key: `session:ip:${address}`, limit });
  try {
    const result = await hitRateLimits(await getDb(), rules, 60);
    if (!result.allowed) {
      return problem(
        429,
        `Too many login attempts. Please wait ${secondsInWords(result.retryAfterSeconds)} and try again.`,
        {
          "Retry-After": String(result.retryAfterSeconds),
        },
      );
    }
  } catch (error) {
    logBackendFault("postgres", "counting login attempts", error);
    return problem(503, "Login is unavailable right now. Please try again shortly.");
  }
  return undefined;
}
