import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { env, expect, mainNav, signIn, test } from "./fixtures";

/**
 * A visitor's first minutes (ADR 060): a new account lands in
 * the assistant with a "verify your email" banner; a bounced visitor is told
 * why on /login; Logout says "You're signed out". At desktop and phone width.
 */
const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

async function verifyEmailCodes(email: string): Promise<number> {
  const response = await fetch(`http://${env.authHost}/emulator/v1/projects/${env.projectId}/oobCodes`);
  const { oobCodes } = (await response.json()) as { oobCodes: Array<{ email: string; requestType: string }> };
  return oobCodes.filter((code) => code.email === email && code.requestType === "VERIFY_EMAIL").length;
}

function banner(page: Page) {
  return page.getByRole("region", { name: "Verify your email address" });
}

for (const size of SIZES) {
  test.describe(`first run (${size.name})`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test("a new account lands in the assistant with a verify-your-email banner, which can resend and goes once verified", async ({
      page,
      firebase,
    }) => {
      const email = `first-${size.name}-${Date.now()}@example.com`;
      const password = "first-run-pw-1";
      await page.goto("/");
      await page.getByRole("link", { name: "Create an account" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Create your account" })).toBeVisible();
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password", { exact: true }).fill(password);
      await page.getByRole("button", { name: "Create account" }).click();

      await expect(page).toHaveURL(/\/nuvara$/);
      await expect(page.getByText("Welcome back")).toHaveCount(0);
      await expect(banner(page)).toBeVisible();
      await expect(banner(page)).toContainText(`We sent a link to ${email} when you signed up.`);
      await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
      expect(await verifyEmailCodes(email)).toBe(1);
      await expectNoAxeViolations(page, `assistant with the verify banner (${size.name})`);

      // Resend: confirm it's you, then the identity service sends a second link.
      await banner(page).getByRole("button", { name: "Send the link again" }).click();
      // The cursor goes straight to the password it asks for.
      await expect(banner(page).getByLabel("Your current password")).toBeFocused();
      await page.keyboard.type(password);
      await banner(page).getByRole("button", { name: "Send the link again" }).click();
      await expect(banner(page).getByRole("status")).toContainText(`We've sent a new link to ${email}.`);
      expect(await verifyEmailCodes(email)).toBe(2);

      // Verified (as opening the link does): the next page load has no banner.
      const user = await firebase.auth.getUserByEmail(email);
      await firebase.auth.updateUser(user.uid, { emailVerified: true });
      await page.reload();
      await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
      await expect(banner(page)).toHaveCount(0);
    });

    test("the banner hides to a small Verify email chip that opens it again, remembered across reloads for this account", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount({ verified: false }));
      await page.goto("/nuvara");
      const chip = page.getByRole("button", { name: "Verify email", exact: true });
      await expect(banner(page)).toBeVisible();
      await banner(page).getByRole("button", { name: "Hide" }).click();
      await expect(banner(page)).toHaveCount(0);
      await expect(chip).toBeFocused();
      // The chip takes one line, not a good part of a phone's screen.
      expect((await chip.boundingBox())!.height).toBeLessThan(40);
      await page.screenshot({ path: `/tmp/verify-chip-${size.name}.png` });
      await expectNoAxeViolations(page, `assistant with the verify chip (${size.name})`);

      await page.reload();
      await expect(chip).toBeVisible();
      await expect(banner(page)).toHaveCount(0);

      // Another account in this browser still sees its own reminder.
      await signIn(page, await newAccount({ verified: false }));
      await page.reload();
      await expect(banner(page)).toBeVisible();
      await expect(chip).toHaveCount(0);
    });

    test("the Verify email chip opens the banner again, and the reminder stays open after a reload", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount({ verified: false }));
      await page.goto("/nuvara");
      await banner(page).getByRole("button", { name: "Hide" }).click();
      await page.getByRole("button", { name: "Verify email", exact: true }).click();
      await expect(banner(page)).toBeVisible();
      await expect(banner(page).getByRole("button", { name: "Hide" })).toBeFocused();
      await expect(banner(page).getByRole("button", { name: "Send the link again" })).toBeVisible();
      await page.reload();
      await expect(banner(page)).toBeVisible();
      await expect(page.getByRole("button", { name: "Verify email", exact: true })).toHaveCount(0);
    });

    test("a verified account sees no banner", async ({ page, newAccount }) => {
      await signIn(page, await newAccount());
      await page.goto("/nuvara");
      await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
      await expect(banner(page)).toHaveCount(0);
    });

    test("a visitor bounced to /login is told why, and still goes back where they were going", async ({
      page,
      newAccount,
    }) => {
      const cases: Array<[string, string]> = [
        ["/nuvara", "Log in to use the assistant."],
        ["/dashboard", "Log in to see your dashboard."],
        ["/admin/messages", "Log in with an admin account to open the admin area."],
        ["/tools/summarize", "Log in to use this tool."],
      ];
      for (const [path, reason] of cases) {
        await page.goto(path);
        await expect(page).toHaveURL(`/login?redirectTo=${encodeURIComponent(path)}`);
        await expect(page.getByRole("heading", { level: 1, name: "Log in" })).toBeVisible();
        await expect(page.getByText(reason)).toBeVisible();
      }
      await expectNoAxeViolations(page, `login with a reason (${size.name})`);

      // Opened of their own accord: no reason.
      await page.goto("/login");
      await expect(page.getByRole("heading", { level: 1, name: "Log in" })).toBeVisible();
      await expect(page.getByText(/^Log in to /)).toHaveCount(0);
      // A redirectTo off the site gives no reason and is not followed.
      await page.goto(`/login?redirectTo=${encodeURIComponent("https://evil.test/nuvara")}`);
      await expect(page.getByText(/^Log in to /)).toHaveCount(0);

      // The redirectTo still works: signing in from the bounce goes to the assistant.
      const account = await newAccount();
      await page.goto("/nuvara");
      await page.getByLabel("Email").fill(account.email);
      await page.getByLabel("Password", { exact: true }).fill(account.password);
      await page.getByRole("button", { name: "Log in", exact: true }).click();
      await expect(page).toHaveURL(/\/nuvara$/);
    });

    test('Logout says "You\'re logged out" where it lands, once', async ({ page, newAccount }) => {
      await signIn(page, await newAccount());
      await page.goto("/dashboard");
      if (size.name === "phone") await mainNav(page).getByRole("button", { name: "Menu" }).click();
      await mainNav(page).getByRole("button", { name: "Logout" }).click();
      await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/$/);
      await expect(page.getByRole("status").filter({ hasText: "You're logged out." })).toBeVisible();
      await expect(mainNav(page).getByRole("link", { name: "Login", includeHidden: true })).toHaveCount(1);
      await expectNoAxeViolations(page, `home after logout (${size.name})`);
      // Said once: a reload, or a later visit, does not repeat it.
      await page.reload();
      await expect(page.getByRole("heading", { level: 1, name: "Nuvara2" })).toBeVisible();
      await expect(page.getByText("You're logged out.")).toHaveCount(0);
    });
  });
}
