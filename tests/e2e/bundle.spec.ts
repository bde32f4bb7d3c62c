import { expect, test } from "./fixtures";
import { trackNetwork } from "./network-quiet";

/** Firebase client code is loaded by /login only (ADR 030). */
const FIREBASE_MARKERS = ["identitytoolkit.googleapis.com", "@firebase/auth", "securetoken.googleapis.com"];

async function scriptsOf(page: import("@playwright/test").Page, path: string) {
  const bodies: Array<{ url: string; body: string }> = [];
  const network = trackNetwork(page);
  page.on("response", async (response) => {
    if (response.request().resourceType() === "script") {
      bodies.push({ url: response.url(), body: await response.text().catch(() => "") });
    }
  });
  await page.goto(path);
  await network.quiet();
  return bodies;
}

test("/ requests no Firebase client code", async ({ page }) => {
  const scripts = await scriptsOf(page, "/");
  expect(scripts.length).toBeGreaterThan(0);
  for (const { url, body } of scripts) {
    for (const marker of FIREBASE_MARKERS) expect(body, `${url} contains ${marker}`).not.toContain(marker);
  }
  // Hovering the Login link does not prefetch the login route's code either: no script is requested.
  const requestedAfterHover: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") requestedAfterHover.push(request.url());
  });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Login" }).hover();
  await pastHoverPrefetch(page);
  expect(requestedAfterHover).toEqual([]);
  for (const { body } of scripts) expect(body).not.toContain("identitytoolkit.googleapis.com");
});

/**
 * Resolves once a link hovered just before would have started its prefetch:
 * Remix prefetches on hover (prefetch="intent") from a 100 ms timer set once
 * the hover has rendered; a timer as long set after that fires later, and two
 * frames on, the prefetch's requests would have begun.
 */
async function pastHoverPrefetch(page: import("@playwright/test").Page) {
  await page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    await frame();
    await frame();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await frame();
    await frame();
  });
}

test("/login loads the Firebase auth code", async ({ page }) => {
  const scripts = await scriptsOf(page, "/login");
  expect(scripts.some(({ body }) => body.includes("identitytoolkit.googleapis.com"))).toBe(true);
});
