import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { env, expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";

/**
 * The dashboard's Notifications (docs/decisions/101): the devices told when
 * a reply is done, each with Remove, and the preview choice. The browser
 * tests block service workers and headless Chromium has no push service, so
 * the devices are subscribed through the same endpoint the page posts to
 * (POST /api/notifications) with keys made as a browser makes them; the real
 * subscribe and the messages themselves are covered by
 * tests/integration/reply-notices.test.ts. Local mode makes its own VAPID
 * pair, so push is on here; SMTP_URL is not set, so email is not offered.
 */

const SIZES = [
  { name: "1280", width: 1280, height: 800 },
  { name: "390", width: 390, height: 844 },
];
const ANDROID_CHROME =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";

/** What a browser's PushSubscription.toJSON() gives: an endpoint, its P-256 public key and a 16-byte auth secret. */
async function subscribe(page: Page, name: string, userAgent?: string) {
  const keys = await page.evaluate(async () => {
    const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
    const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
    const b64url = (bytes: Uint8Array) =>
      btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
    return { p256dh: b64url(raw), auth: b64url(crypto.getRandomValues(new Uint8Array(16))) };
  });
  const response = await page.request.post("/api/notifications", {
    headers: { Origin: env.baseURL, ...(userAgent ? { "User-Agent": userAgent } : {}) },
    data: { action: "subscribe", subscription: { endpoint: `https://push.example.com/${name}`, keys } },
  });
  expect(response.status()).toBe(200);
}

async function expectAccessibleInBothThemes(page: Page, state: string) {
  await expectNoAxeViolations(page, `${state}, light`);
  await page.emulateMedia({ colorScheme: "dark" });
  await expectNoAxeViolations(page, `${state}, dark`, { coloursOnly: true });
  await page.emulateMedia({ colorScheme: "light" });
}

for (const size of SIZES) {
  test(`the devices told when a reply is done are listed and removed, and previews are a choice (${size.name})`, async ({
    page,
    context,
    newAccount,
  }) => {
    // Two reloads and four axe runs: on this busy machine it takes over the default 30 s.
    test.setTimeout(120_000);
    await context.grantPermissions(["notifications"]);
    await page.setViewportSize({ width: size.width, height: size.height });
    await signIn(page, await newAccount());
    await page.goto("/dashboard");
    const section = page.getByRole("region", { name: "Notifications" });
    await expect(section.getByText("No device is notified yet.")).toBeVisible();
    // Offered, never asked on load: the permission is asked only on this click.
    await expect(section.getByRole("button", { name: "Notify me on this device" })).toBeVisible();
    await expect(section.getByRole("checkbox", { name: "Email me when a long reply finishes" })).toHaveCount(0);

    await subscribe(page, "phone", ANDROID_CHROME);
    await subscribe(page, "laptop");
    await page.reload();
    const devices = section.getByRole("list", { name: "Notified devices" }).getByRole("listitem");
    await expect(devices).toHaveCount(2);
    await expect(devices.nth(0)).toContainText("Chrome on Android");
    await expect(devices.nth(0)).toContainText("not notified yet");
    await expect(devices.nth(1)).toContainText("Chrome on Linux");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
    await section.scrollIntoViewIfNeeded();
    await expectAccessibleInBothThemes(page, `notified devices at ${size.name}`);
    await reviewShots(page, `notifications-devices-${size.name}`);

    // Previews are off until chosen, and the choice is kept.
    const preview = section.getByRole("checkbox", { name: "Show the reply's first words in notifications" });
    await expect(preview).not.toBeChecked();
    await preview.check();
    await expect(preview).toBeChecked();
    await expect
      .poll(async () => {
        await page.reload();
        return preview.isChecked();
      })
      .toBe(true);

    await devices
      .nth(0)
      .getByRole("button", { name: /^Remove Chrome on Android/ })
      .click();
    await expect(devices).toHaveCount(1);
    await expect(devices.nth(0)).toContainText("Chrome on Linux");
    await devices
      .nth(0)
      .getByRole("button", { name: /^Remove Chrome on Linux/ })
      .click();
    await expect(section.getByText("No device is notified yet.")).toBeVisible();
    await section.scrollIntoViewIfNeeded();
    await expectAccessibleInBothThemes(page, `no devices, previews on, at ${size.name}`);
    await reviewShots(page, `notifications-empty-${size.name}`);
  });
}
