import { useSyncExternalStore } from "react";

const neverChanges = () => () => {};

/**
 * False during the server render and hydration, true after — and true at once
 * in anything mounted later (a composer shown by a client-side navigation can
 * send at its first keystroke): for what only the browser knows (its time
 * zone, this tab's storage).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );
}
