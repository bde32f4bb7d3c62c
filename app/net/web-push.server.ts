import webPush from "web-push";
import { getConfig, type VapidSettings } from "~/config.server";
import { createOutboundFetch } from "./outbound.server";

/**
 * Sends one Web Push message (docs/decisions/101): encrypted for the
 * browser's keys (aes128gcm, RFC 8291) and signed with the server's VAPID key
 * by the web-push library, then POSTed through the outbound guard
 * (docs/decisions/088) — the endpoint is an address a browser gave us, so it
 * gets the same checks as any address a tool was given: public addresses
 * only unless the operator allows one (OUTBOUND_ALLOW), no redirects.
 */

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** What the push service said: delivered, gone for good (drop the subscription), or failed this time. */
export type PushOutcome = { sent: true } | { sent: false; gone: boolean; why: string };

/** How long a push service keeps a message for a device that is offline: a notice older than this is stale. */
const TTL_SECONDS = 6 * 60 * 60;
const TIMEOUT_MS = 10_000;

export async function sendPush(vapid: VapidSettings, target: PushTarget, payload: string): Promise<PushOutcome> {
  let details: ReturnType<typeof webPush.generateRequestDetails>;
  try {
    details = webPush.generateRequestDetails({ endpoint: target.endpoint, keys: target }, payload, {
      vapidDetails: vapid,
      TTL: TTL_SECONDS,
      urgency: "normal",
      contentEncoding: "aes128gcm",
    });
  } catch (error) {
    // Keys the browser gave that cannot be encrypted for, or an endpoint that is not a URL: never deliverable.
    return { sent: false, gone: true, why: error instanceof Error ? error.message : String(error) };
  }
  const send = createOutboundFetch({
    allow: getConfig().outbound.allow,
    timeoutMs: TIMEOUT_MS,
    maxRedirects: 0,
    maxBytes: 64 * 1024,
  });
  try {
    const response = await send(details.endpoint, {
      method: details.method,
      headers: details.headers as Record<string, string>,
      body: details.body ? new Uint8Array(details.body) : undefined,
      redirect: "error",
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { sent: true };
    return { sent: false, gone: response.status === 404 || response.status === 410, why: `HTTP ${response.status}` };
  } catch (error) {
    return { sent: false, gone: false, why: error instanceof Error ? error.message : String(error) };
  }
}
