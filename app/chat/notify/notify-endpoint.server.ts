import { json } from "@remix-run/node";
import { z } from "zod";
import { isSameOrigin } from "~/auth/request.server";
import { getConfig } from "~/config.server";
import { logBackendFault } from "~/deadline.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import { setNotifyPreferences } from "~/data/preferences.server";
import { removePushSubscription, savePushSubscription, TooManyDevicesError } from "~/data/push-subscriptions.server";
import { reportTab } from "~/data/tab-presence.server";
import { apiDatabase, apiSignedIn } from "~/http/api-session.server";
import { readBody } from "~/http/forms.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { deviceLabel } from "./device-label";

/**
 * The JSON endpoints of notices (docs/decisions/101), each origin-guarded and
 * for the signed-in user only:
 *
 * POST /api/notifications
 *   {action: "subscribe", subscription: {endpoint, keys: {p256dh, auth}}} → 200 {id}
 *   {action: "remove", id} or {action: "remove", endpoint}                  → 200 {removed}
 *   {action: "preferences", preview?, email?}                               → 200 {ok}
 * POST /api/presence {tab, visible}: this tab is visible (heartbeat) or not → 204
 *
 *   400 bad input · 401 not signed in · 403 cross-origin · 404 push is off
 *   409 too many devices · 503 a store is unreachable
 */

const PRIVATE = { "Cache-Control": "no-store" };

const base64url = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} must be base64url.`)
    .refine((value) => Buffer.from(value, "base64url").length === bytes, `${what} must be ${bytes} bytes.`);

const subscriptionSchema = z.object({
  endpoint: z
    .string()
    .max(2048, "The endpoint is too long.")
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
      message: "The endpoint must be an http(s) URL.",
    }),
  keys: z.object({ p256dh: base64url(65, "keys.p256dh"), auth: base64url(16, "keys.auth") }),
});

const notifySchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("subscribe"), subscription: subscriptionSchema }),
  z.object({
    action: z.literal("remove"),
    id: z.uuid({ message: "id must be a device's id." }).optional(),
    endpoint: z.string().max(2048).optional(),
  }),
  z.object({ action: z.literal("preferences"), preview: z.boolean().optional(), email: z.boolean().optional() }),
]);

export async function notificationsResponse(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return json({ error: "Cross-origin requests are refused." }, { status: 403 });
  const who = await apiSignedIn(request);
  if (who instanceof Response) return who;
  const body = await readBody(request, BODY_LIMITS.small);
  if ("refusal" in body) return body.refusal;
  const parsed = notifySchema.safeParse(body.fields);
  if (!parsed.success) return json({ error: parsed.error.issues[0].message }, { status: 400, headers: PRIVATE });
  const db = await apiDatabase("notification settings", unavailable);
  if (db instanceof Response) return db;
  const uid = who.user.uid;
  const input = parsed.data;
  try {
    if (input.action === "subscribe") {
      if (!getConfig().notify.vapid) {
        return json({ error: "Push notifications are not set up on this server." }, { status: 404, headers: PRIVATE });
      }
      const { endpoint, keys } = input.subscription;
      const id = await savePushSubscription(db, uid, {
        endpoint,
        p256dh: keys.p256dh,
        auth: keys.auth,
        device: deviceLabel(request.headers.get("User-Agent")),
      });
      return json({ id }, { headers: PRIVATE });
    }
    if (input.action === "remove") {
      const which = input.id ? { id: input.id } : input.endpoint ? { endpoint: input.endpoint } : undefined;
      if (!which) return json({ error: "Name the device: an id or an endpoint." }, { status: 400, headers: PRIVATE });
      return json({ removed: await removePushSubscription(db, uid, which) }, { headers: PRIVATE });
    }
    await setNotifyPreferences(db, uid, { preview: input.preview, email: input.email });
    return json({ ok: true }, { headers: PRIVATE });
  } catch (error) {
    if (error instanceof TooManyDevicesError)
      return json({ error: `${error.message} Remove one first.` }, { status: 409, headers: PRIVATE });
    if (isAccountDeleted(error)) return json({ error: "This account was deleted." }, { status: 401 });
    logBackendFault("postgres", "changing notification settings", error);
    return unavailable();
  }
}

const presenceSchema = z.object({
  tab: z.uuid({ message: "tab must be a UUID." }),
  visible: z.boolean({ message: "visible must be true or false." }),
});

export async function presenceResponse(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return json({ error: "Cross-origin requests are refused." }, { status: 403 });
  const who = await apiSignedIn(request);
  if (who instanceof Response) return who;
  const body = await readBody(request, BODY_LIMITS.small);
  if ("refusal" in body) return body.refusal;
  const parsed = presenceSchema.safeParse(body.fields);
  if (!parsed.success) return json({ error: parsed.error.issues[0].message }, { status: 400, headers: PRIVATE });
  const db = await apiDatabase("a tab's visibility", unavailable);
  if (db instanceof Response) return db;
  try {
    await reportTab(db, who.user.uid, parsed.data.tab, parsed.data.visible);
    return new Response(null, { status: 204, headers: PRIVATE });
  } catch (error) {
    logBackendFault("postgres", "recording a tab's visibility", error);
    return unavailable();
  }
}

const unavailable = () =>
  json(
    { error: "Your notification settings could not be saved right now. Please try again shortly." },
    { status: 503 },
  );
