import { expectNoAxeViolations } from "./a11y";
import { expect, test } from "./fixtures";

/**
 * The login page's wording and controls (docs/features.md, "Signing up and signing in"), at desktop and
 * phone width: the requirements message points where the list is, a
 * show-password toggle, and one answer whether or not an account exists.
 */
const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

const WRONG = "That email and password don't match. Check them and try again, or reset your password.";

for (const size of SIZES) {
  test.describe(`login polish (${size.name})`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test("the unmet-requirements message points up to the list, which is above it", async ({ page }) => {
      await page.goto("/login?mode=signup");
      await page.getByLabel("Email").fill(`weak-${size.name}-${Date.now()}@example.com`);
      await page.getByLabel("Password", { exact: true }).fill("abc");
      await page.getByRole("button", { name: "Create account" }).click();
      const alert = page.getByRole("alert");
      await expect(alert).toHaveText("Choose a password that meets every requirement in the list above.");
      const rules = await page.getByRole("list", { name: "Password requirements" }).boundingBox();
      const message = await alert.boundingBox();
      expect(rules!.y + rules!.height).toBeLessThanOrEqual(message!.y);
      // Nothing typed is lost.
      await expect(page.getByLabel("Password", { exact: true })).toHaveValue("abc");
    });

    test("the fields line up with the buttons, inside the screen", async ({ page }) => {
      await page.goto("/login");
      const right = async (box: { x: number; width: number } | null) => Math.round(box!.x + box!.width);
      const signIn = await right(await page.getByRole("button", { name: "Log in", exact: true }).boundingBox());
      expect(await right(await page.getByLabel("Email").boundingBox())).toBe(signIn);
      expect(await right(await page.getByRole("button", { name: "Show password" }).boundingBox())).toBe(signIn);
      expect(signIn).toBeLessThanOrEqual(size.width);
    });

    test("a show-password toggle: a real button, pressed state announced, usable from the keyboard", async ({
      page,
    }) => {
      await page.goto("/login");
      const password = page.getByLabel("Password", { exact: true });
      const toggle = page.getByRole("button", { name: "Show password" });
      await password.fill("secret-typed-1");
      await expect(password).toHaveAttribute("type", "password");
      await expect(toggle).toHaveAttribute("aria-pressed", "false");

      // From the password field, Tab reaches the toggle; Space shows the password.
      await password.focus();
      await page.keyboard.press("Tab");
      await expect(toggle).toBeFocused();
      await page.keyboard.press("Space");
      await expect(toggle).toHaveAttribute("aria-pressed", "true");
      await expect(password).toHaveAttribute("type", "text");
      await expect(password).toHaveValue("secret-typed-1");
      await expectNoAxeViolations(page, `login with the password shown (${size.name})`);
      // Enter hides it again; what was typed stays.
      await page.keyboard.press("Enter");
      await expect(toggle).toHaveAttribute("aria-pressed", "false");
      await expect(password).toHaveAttribute("type", "password");
      await expect(password).toHaveValue("secret-typed-1");
      // The toggle sits beside the field, within the screen.
      const box = await toggle.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
    });

    test("sign-in does not tell whether an account exists: one message for an unknown email or a wrong password", async ({
      page,
      newAccount,
    }) => {
      const account = await newAccount();
      await page.goto("/login");
      await page.getByLabel("Email").fill(`nobody-${Date.now()}@example.com`);
      await page.getByLabel("Password", { exact: true }).fill("whatever-1");
      await page.getByRole("button", { name: "Log in", exact: true }).click();
      await expect(page.getByRole("alert")).toHaveText(WRONG);

      await page.getByLabel("Email").fill(account.email);
      await page.getByLabel("Password", { exact: true }).fill("not-the-password");
      await page.getByRole("button", { name: "Log in", exact: true }).click();
      await expect(page.getByRole("alert")).toHaveText(WRONG);
      await expect(page.getByLabel("Password", { exact: true })).toHaveValue("not-the-password");
    });

    test("reset says the same for an address with no account", async ({ page }) => {
      await page.goto("/login?mode=reset");
      const email = `nobody-${Date.now()}@example.com`;
      await page.getByLabel("Email").fill(email);
      await page.getByRole("button", { name: "Send reset link" }).click();
      await expect(
        page.getByRole("status").filter({ hasText: `If an account exists for ${email}, we've sent it a link` }),
      ).toBeVisible();
      await expect(page.getByRole("alert")).toHaveCount(0);
    });

    test('"Log in" everywhere but the nav, which keeps Login', async ({ page }) => {
      for (const path of ["/", "/login", "/login?mode=signup", "/login?mode=reset", "/nuvara", "/tools/summarize"]) {
        await page.goto(path);
        const text = await page.locator("main").innerText();
        // One wording, the nav's (docs/decisions/083): never "sign in" or "sign out".
        expect(text, path).not.toMatch(/\bsign(ed|ing)?[ -]?(in|out)\b/i);
      }
      await page.goto("/login");
      await expect(page.getByRole("heading", { level: 1, name: "Log in" })).toBeVisible();
      await expect(page.getByRole("button", { name: "Log in", exact: true })).toBeVisible();
      await expect(
        page
          .getByRole("navigation", { name: "Main" })
          .getByRole("link", { name: "Login", exact: true, includeHidden: true }),
      ).toHaveCount(1);
    });
  });
}

test.describe("before the script has loaded", () => {
  test.use({ javaScriptEnabled: false });

  test("submitting the form never puts the password in the address", async ({ page }) => {
    await page.goto("/login");
    await page.getByLabel("Email").fill("early@example.com");
    await page.getByLabel("Password", { exact: true }).fill("typed-too-early-1");
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await page.waitForLoadState();
    expect(page.url()).not.toContain("typed-too-early-1");
    expect(page.url()).not.toContain("password=");
  });
});
