import { expect, type Page, type Request } from "@playwright/test";

/** The conversation list's event stream stays open as long as the page does (app/components/chat/use-live-conversations.ts). */
const LONG_LIVED = /\/api\/conversations\/events$/;
const QUIET_MS = 500;

/**
 * Playwright's "networkidle" with the page's long-lived event stream left out:
 * that stream never ends, so a /nuvara page is never idle in Playwright's
 * sense. Attach before the page navigates; `quiet()` then resolves once no
 * other request has been in flight for 500 ms, as "networkidle" does.
 */
export function trackNetwork(page: Page): { quiet(): Promise<void> } {
  const known = trackers.get(page);
  if (known) return known;
  const inFlight = new Set<Request>();
  let lastChange = Date.now();
  page.on("request", (request) => {
    if (LONG_LIVED.test(request.url())) return;
    inFlight.add(request);
    lastChange = Date.now();
  });
  const settle = (request: Request) => {
    if (inFlight.delete(request)) lastChange = Date.now();
  };
  page.on("requestfinished", settle);
  page.on("requestfailed", settle);
  const tracker = {
    async quiet() {
      await page.waitForLoadState("load");
      await expect
        .poll(() => inFlight.size === 0 && Date.now() - lastChange >= QUIET_MS, { intervals: [100], timeout: 30_000 })
        .toBe(true);
    },
  };
  trackers.set(page, tracker);
  return tracker;
}

const trackers = new WeakMap<Page, { quiet(): Promise<void> }>();
