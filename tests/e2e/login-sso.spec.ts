import { expectNoAxeViolations } from "./a11y";
import { env, expect, mainNav, test } from "./fixtures";
import { SHOTS_DIR } from "./shots";

/**
 * SSO providers (ADR 053): the e2e app runs with AUTH_PROVIDERS=password,google,oidc.acme
 * and AUTH_PROVIDER_NAMES=oidc.acme=Acme SSO (playwright.config.ts).
 */
test.describe("SSO providers on /login", () => {
  test("one button per configured provider, with its name, after the email form", async ({ page }) => {
    await page.goto("/login");
    const continueButtons = page.getByRole("button", { name: /^Continue with / });
    await expect(continueButtons).toHaveText(["Continue with Google", "Continue with Acme SSO"]);
    await expect(page.getByLabel("Email")).toBeVisible();
    await expectNoAxeViolations(page, "login with SSO providers");
    // Only while signing in: the reset form offers no provider buttons.
    await page.getByRole("button", { name: "Forgot your password?" }).click();
    await expect(continueButtons).toHaveCount(0);
  });

  test("Acme SSO starts the SDK's popup flow for oidc.acme and, offline, fails with a clear message", async ({
    page,
  }) => {
    // As with Google: the SDK loads Google's gapi script before it opens the
    // popup, and no Google host can be reached here (ADR 003).
    const gapi = page.waitForRequest((request) => request.url().startsWith("https://apis.google.com/js/api.js"));
    await page.goto("/login");
    await page.getByLabel("Email").fill("kept@example.com");
    await page.getByRole("button", { name: "Continue with Acme SSO" }).click();
    await gapi;
    await expect(page.getByRole("alert")).toBeVisible();
    await expect(page.getByRole("alert")).not.toContainText("auth/");
    await expect(page.getByLabel("Email")).toHaveValue("kept@example.com");
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();
  });

  test("an Acme SSO identity becomes a session (emulator credential, as the popup ends with)", async ({ page }) => {
    const email = `acme-${Date.now()}@acme.example`;
    const claims = { sub: `acme-${Date.now()}`, email, email_verified: true, name: "Ada Acme" };
    const idpToken =
      [{ alg: "none" }, claims].map((part) => Buffer.from(JSON.stringify(part)).toString("base64url")).join(".") + ".";
    const response = await fetch(
      `http://${env.authHost}/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=demo-api-key`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          requestUri: "http://localhost",
          postBody: `providerId=oidc.acme&id_token=${idpToken}`,
          returnSecureToken: true,
        }),
      },
    );
    const { idToken } = (await response.json()) as { idToken: string };
    const session = await page.request.post("/api/auth/session", {
      data: { idToken },
      headers: { Origin: env.baseURL },
    });
    expect(session.status()).toBe(204);
    await page.goto("/dashboard");
    await expect(page.getByText("Ada Acme")).toBeVisible();
    await expect(mainNav(page).getByRole("button", { name: "Logout" })).toBeVisible();
  });

  for (const colorScheme of ["light", "dark"] as const) {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      test(`at ${viewport.width}×${viewport.height} ${colorScheme}, no axe violations`, async ({ browser }) => {
        const context = await browser.newContext({ viewport, colorScheme, baseURL: env.baseURL });
        const page = await context.newPage();
        await page.goto("/login");
        await expect(page.getByRole("button", { name: "Continue with Acme SSO" })).toBeVisible();
        await expectNoAxeViolations(page, `login ${viewport.width} ${colorScheme}`);
        if (SHOTS_DIR)
          await page.screenshot({ path: `${SHOTS_DIR}/login-${viewport.width}-${colorScheme}.png`, fullPage: true });
        await context.close();
      });
    }
  }
});
