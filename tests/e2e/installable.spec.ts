import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, signIn, test } from "./fixtures";
import { expectNoAxeViolations } from "./a11y";
import { reviewShots } from "./shots";

/**
 * The app as an installed one (docs/decisions/098): Chromium's own
 * installability check passes on the manifest and the service worker, the
 * device says clearly when it is offline, and the worker's cache holds only
 * the app's static files — a page only a signed-in user opened is gone from
 * it once they sign out.
 */

test.use({ serviceWorkers: "allow" });

/** Waits until the service worker controls the page (it claims the page it was registered from). */
async function controlledByWorker(page: Page) {
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
}

/** Every address in the worker's caches. */
function cachedPaths(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const paths: string[] = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) paths.push(new URL(request.url).pathname);
    }
    return paths.sort();
  });
}

/** Width and height from a PNG's header. */
function pngSize(bytes: Buffer) {
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test("Chromium finds the app installable: a manifest with its icons, and a service worker in control", async ({
  playwright,
  newAccount,
}, testInfo) => {
  // A profile of its own: Chromium offers no install in an incognito-like context, which every other test uses.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "nuvara-install-"));
  const { baseURL, launchOptions } = testInfo.project.use;
  const context = await playwright.chromium.launchPersistentContext(profile, {
    ...launchOptions,
    baseURL,
    serviceWorkers: "allow",
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await controlledByWorker(page);
    const cdp = await context.newCDPSession(page);
    await expect.poll(async () => (await cdp.send("Page.getInstallabilityErrors")).installabilityErrors).toEqual([]);
    const { errors, url } = await cdp.send("Page.getAppManifest");
    expect(errors).toEqual([]);
    expect(new URL(url).pathname).toBe("/manifest.webmanifest");
    await expectIconsAsListed(page);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
});

/** The manifest names the app and lists PNG icons of the sizes and purposes an install needs, each really that size. */
async function expectIconsAsListed(page: Page) {
  const manifest = await (await page.request.get("/manifest.webmanifest")).json();
  expect(manifest).toMatchObject({
    name: "Nuvara²",
    short_name: "Nuvara",
    start_url: "/nuvara",
    display: "standalone",
  });
  const pngs = (manifest.icons as Array<{ src: string; sizes: string; type: string; purpose: string }>).filter(
    (icon) => icon.type === "image/png",
  );
  expect(pngs.map((icon) => `${icon.sizes} ${icon.purpose}`)).toEqual([
    "192x192 any",
    "512x512 any",
    "512x512 maskable",
  ]);
  for (const icon of pngs) {
    const response = await page.request.get(icon.src);
    expect(response.headers()["content-type"]).toBe("image/png");
    const { width, height } = pngSize(await response.body());
    expect(`${width}x${height}`).toBe(icon.sizes);
  }
}

test("offline, a page says so instead of the browser's error, and comes back with Try again", async ({
  page,
  context,
  newAccount,
}) => {
  await signIn(page, await newAccount());
  await page.goto("/dashboard");
  await controlledByWorker(page);
  await context.setOffline(true);
  await page.goto("/nuvara");
  await expect(page.getByRole("heading", { name: "You're offline" })).toBeVisible();
  await expectNoAxeViolations(page, "the offline page");
  await reviewShots(page, "offline");
  await page.setViewportSize({ width: 390, height: 844 });
  await reviewShots(page, "offline-phone");
  await context.setOffline(false);
  await page.getByRole("link", { name: "Try again" }).click();
  await expect(page.getByRole("link", { name: "New chat" })).toBeVisible();
  await expect(page).toHaveURL(/\/nuvara$/);
});

test("the worker keeps only static files, and a sign-out empties what a signed-in page loaded", async ({
  page,
  newAccount,
}) => {
  await signIn(page, await newAccount());
  await page.goto("/dashboard");
  await controlledByWorker(page);
  // Opened under the worker's control: the assistant page's scripts are fetched through it and kept.
  await page.goto("/nuvara");
  await expect(page.getByRole("link", { name: "New chat" })).toBeVisible();
  let kept: string[] = [];
  await expect
    .poll(async () => {
      kept = await cachedPaths(page);
      return kept.some((path) => path.startsWith("/build/routes/nuvara"));
    })
    .toBe(true);
  // Nothing but the shell and the build's files: no page, no data answer.
  for (const path of kept) {
    expect(path).toMatch(/^(\/offline\.html|\/favicon\.svg|\/manifest\.webmanifest|\/icons\/[\w-]+\.png|\/build\/.+)$/);
  }

  await page.getByRole("button", { name: "Logout" }).click();
  await expect(page.getByRole("link", { name: "Login" })).toBeVisible();
  await expect
    .poll(async () => (await cachedPaths(page)).some((path) => path.startsWith("/build/routes/nuvara")))
    .toBe(false);
  // The offline page is ready again for whoever uses the device next.
  await expect.poll(() => cachedPaths(page)).toContain("/offline.html");
});
