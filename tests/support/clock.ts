import { afterEach, beforeEach } from "vitest";
import { pinClock } from "~/time/clock.server";

/**
 * Rate limits count in fixed windows of the app's clock (app/time/clock.server.ts).
 * For tests that call the app in their own process: each test of the file
 * runs with that clock held still at the time it started, so a test that
 * fills a window is never cut in two by the window's end, whenever it runs.
 */
export function holdAppClockInEachTest() {
  beforeEach(() => pinClock(new Date()));
  afterEach(() => pinClock(undefined));
}

/** `seconds` into the current minute: the app's clock pinned there has 60 - `seconds` seconds left in a one-minute window. */
export function intoThisMinute(seconds: number): Date {
  return new Date(Math.floor(Date.now() / 60_000) * 60_000 + seconds * 1000);
}
