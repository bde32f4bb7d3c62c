/**
 * The time that rate-limit windows are counted in (app/data/rate-limits.server.ts).
 * It is this process's clock. Tests that call the app in their own process
 * pin it (tests/support/clock.ts), so that a test which fills a window is
 * not cut in two by the window's end; nothing else can: no variable,
 * request or setting reaches pinClock.
 */

let pinned: number | undefined;

export function now(): Date {
  return new Date(pinned ?? Date.now());
}

/** Tests only: from now on now() answers `at` (undefined: the real clock again). */
export function pinClock(at: Date | undefined): void {
  pinned = at?.getTime();
}
