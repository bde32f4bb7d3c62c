import { useEffect } from "react";

/**
 * Registers the service worker (public/sw.js, docs/decisions/098) once the
 * page is live: the app becomes installable and says when it is offline.
 * Not in `npm run dev`, whose rebuilt files must never come from a cache.
 */
export function ServiceWorkerRegistration() {
  useEffect(() => {
    if (process.env.NODE_ENV !== "production" || !("serviceWorker" in navigator)) return;
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      // A browser that refuses (private mode, a policy) still has the whole app; only offline and install are lost.
    });
  }, []);
  return null;
}
