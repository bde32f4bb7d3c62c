import { useEffect } from "react";

/**
 * While this tab is visible it tells the server so, every HEARTBEAT_MS, and
 * says when it hides or closes (docs/decisions/101): no notice that a reply
 * is done goes out while one of the user's tabs is in view. Only for a user
 * who is told about replies at all (a device subscribed, or email chosen).
 */

/** app/data/tab-presence.server.ts HEARTBEAT_SECONDS; a report counts for VISIBLE_FOR_SECONDS. */
const HEARTBEAT_MS = 20_000;

export function useTabPresence(enabled: boolean) {
  useEffect(() => {
    if (!enabled) return;
    const tab = crypto.randomUUID();
    const report = (visible: boolean, { beacon = false } = {}) => {
      const body = JSON.stringify({ tab, visible });
      // A closing page cannot wait for fetch; the beacon is sent after it is gone.
      if (beacon && navigator.sendBeacon?.("/api/presence", new Blob([body], { type: "application/json" }))) return;
      void fetch("/api/presence", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
        keepalive: true,
      }).catch(() => undefined);
    };
    let heartbeat: ReturnType<typeof setInterval> | undefined;
    const onVisibility = () => {
      clearInterval(heartbeat);
      const visible = document.visibilityState === "visible";
      report(visible);
      if (visible) heartbeat = setInterval(() => report(true), HEARTBEAT_MS);
    };
    const onHide = () => report(false, { beacon: true });
    onVisibility();
    document.addEventListener("visibilitychange", onVisibility);
    window.addEventListener("pagehide", onHide);
    return () => {
      clearInterval(heartbeat);
      document.removeEventListener("visibilitychange", onVisibility);
      window.removeEventListener("pagehide", onHide);
      report(false);
    };
  }, [enabled]);
}
