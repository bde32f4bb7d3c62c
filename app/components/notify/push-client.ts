/**
 * The browser's half of Web Push (docs/decisions/101). Nothing here runs on
 * its own: permission is asked and the subscription made only when the user
 * clicks "Notify me on this device".
 */

export type PushState = "unsupported" | "default" | "granted" | "denied";

export function pushState(): PushState {
  if (typeof window === "undefined") return "unsupported";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window))
    return "unsupported";
  return Notification.permission;
}

/** The worker that shows the notices (public/sw.js); registered here if the page has not yet (as in `npm run dev`). */
async function worker(): Promise<ServiceWorkerRegistration> {
  const known = await navigator.serviceWorker.getRegistration("/");
  if (!known) await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

export async function postNotifications(body: Record<string, unknown>): Promise<string | undefined> {
  try {
    const response = await fetch("/api/notifications", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.ok) return undefined;
    const answer = (await response.json().catch(() => ({}))) as { error?: string };
    return answer.error ?? "That didn't work right now. Please try again shortly.";
  } catch {
    return "You seem to be offline. Please try again when you're connected.";
  }
}

/** Asks for permission (on the user's click), subscribes this browser and tells the server; an error to show, or undefined. */
export async function subscribeThisDevice(publicKey: string): Promise<string | undefined> {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    return permission === "denied"
      ? "Notifications are blocked for this site. Allow them in your browser's site settings, then try again."
      : "Notifications were not allowed. Choose Allow when your browser asks.";
  }
  try {
    const registration = await worker();
    const subscription =
      (await registration.pushManager.getSubscription()) ??
      (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
    return await postNotifications({ action: "subscribe", subscription: subscription.toJSON() });
  } catch {
    return "This browser could not be set up for notifications. Please try again, or use another browser.";
  }
}

/** This browser's push endpoint, if it has one (to mark it in the list, and to unsubscribe it when removed). */
export async function thisDeviceSubscription(): Promise<PushSubscription | null> {
  if (pushState() === "unsupported") return null;
  const registration = await navigator.serviceWorker.getRegistration("/");
  return (await registration?.pushManager.getSubscription()) ?? null;
}
