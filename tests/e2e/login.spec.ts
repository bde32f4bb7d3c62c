import type { Page } from "@playwright/test";
import { DEMO_ACCOUNTS } from "../../scripts/local/seed";
import { idTokenFor } from "../support/identity";
import { env, expect, mainNav, test } from "./fixtures";

async function fillSignIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
}

async function oobCodes(): Promise<Array<{ email: string; requestType: string }>> {
  const response = await fetch(`http://${env.authHost}/emulator/v1/projects/${env.projectId}/oobCodes`);
  return ((await response.json()) as { oobCodes: Array<{ email: string; requestType: string }> }).oobCodes;
}

/** Makes the identity service answer sign-in with an error code (for errors the emulator cannot produce). */
async function identityAnswers(page: Page, message: string) {
  await page.route("**/accounts:signInWithPassword**", (route) =>
    route.fulfill({
      status: 400,
      contentType: "application/json",
      headers: { "Access-Control-Allow-Origin": "*" },
      body: JSON.stringify({ error: { code: 400, message, errors: [{ message, reason: "invalid" }] } }),
    }),
  );
}

test.describe("the login page", () => {
  test("signs in the printed demo user through the real form", async ({ page }) => {
    const demo = DEMO_ACCOUNTS.find((a) => a.role === "")!;
    await page.goto("/");
    await mainNav(page).getByRole("link", { name: "Login" }).click();
    await expect(page).toHaveTitle("Log in · Nuvara²");
    await fillSignIn(page, demo.email, demo.password);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/$/);
    await expect(mainNav(page).getByRole("button", { name: "Logout" })).toBeVisible();
    await expect(mainNav(page).getByRole("link", { name: "Admin" })).toHaveCount(0);
  });

  test("the demo admin sees Admin and opens /admin/messages", async ({ page }) => {
    const demo = DEMO_ACCOUNTS.find((a) => a.role === "admin")!;
    await page.goto("/login");
    await fillSignIn(page, demo.email, demo.password);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await mainNav(page).getByRole("link", { name: "Admin" }).click();
    await expect(page.getByRole("heading", { name: "Admin messages" })).toBeVisible();
  });

  test("creates an account, shows the password policy as the user types, and sends a verification email", async ({
    page,
  }) => {
    const email = `new-${Date.now()}@example.com`;
    await page.goto("/login");
    await page.getByRole("button", { name: "New here? Create an account" }).click();
    await expect(page.getByRole("heading", { name: "Create your account" })).toBeVisible();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("abc");
    const rules = page.getByRole("list", { name: "Password requirements" });
    await expect(rules.getByText("At least 6 characters")).toContainText("(not met yet)");
    // Said in words a sighted user reads too, with a mark of its own, not by colour alone.
    await expect(rules.getByText("(not met yet)")).toBeVisible();
    await expect(rules.getByRole("listitem").first()).toContainText("✗");
    // Screen readers hear how far the password has got, politely.
    const progress = page.getByRole("status").filter({ hasText: /^Password requirements met|meets every requirement/ });
    await expect(progress).toHaveText("Password requirements met: 0 of 1. Still needed: At least 6 characters.");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("alert")).toHaveText(
      "Choose a password that meets every requirement in the list above.",
    );
    await page.getByLabel("Password", { exact: true }).fill("abcdef1");
    await expect(rules.getByText("At least 6 characters")).toContainText("(met)");
    await expect(rules.getByText("(met)")).toBeVisible();
    await expect(rules.getByRole("listitem").first()).toContainText("✓");
    await expect(progress).toHaveText("The password meets every requirement.");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(mainNav(page).getByRole("button", { name: "Logout" })).toBeVisible();
    await expect(page).toHaveURL(/\/nuvara$/);
    expect(await oobCodes()).toContainEqual(expect.objectContaining({ email, requestType: "VERIFY_EMAIL" }));
  });

  test("sends a password reset email", async ({ page, newAccount }) => {
    const account = await newAccount();
    await page.goto("/login");
    await page.getByRole("button", { name: "Forgot your password?" }).click();
    await page.getByLabel("Email").fill(account.email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(page.getByRole("status").filter({ hasText: "we've sent it a link" })).toBeVisible();
    expect(await oobCodes()).toContainEqual(
      expect.objectContaining({ email: account.email, requestType: "PASSWORD_RESET" }),
    );
  });

  test("shows a pending nav while logging in", async ({ page, newAccount }) => {
    const account = await newAccount();
    await page.goto("/login");
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/auth/session", async (route) => {
      await held;
      await route.continue();
    });
    await fillSignIn(page, account.email, account.password);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(mainNav(page).getByRole("status")).toHaveText("Logging in…");
    release();
    await expect(mainNav(page).getByRole("button", { name: "Logout" })).toBeVisible();
  });

  test("Google login starts the SDK's popup flow and, offline, fails with a clear message", async ({ page }) => {
    // The SDK loads Google's gapi script before it opens the popup; no Google
    // host can be reached here (ADR 003), so the flow stops there.
    const gapi = page.waitForRequest((request) => request.url().startsWith("https://apis.google.com/js/api.js"));
    await page.goto("/login");
    await page.getByLabel("Email").fill("kept@example.com");
    await page.getByRole("button", { name: "Continue with Google" }).click();
    await gapi;
    await expect(page.getByRole("alert")).toBeVisible();
    await expect(page.getByRole("alert")).not.toContainText("auth/");
    await expect(page.getByLabel("Email")).toHaveValue("kept@example.com");
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();
  });

  test("a Google identity becomes a session (emulator credential, as signInWithCredential does)", async ({ page }) => {
    const email = `g-${Date.now()}@gmail.com`;
    const fakeGoogleToken = JSON.stringify({ sub: `g-${Date.now()}`, email, email_verified: true, name: "Gia Google" });
    const response = await fetch(
      `http://${env.authHost}/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=demo-api-key`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          requestUri: "http://localhost",
          postBody: `id_token=${encodeURIComponent(fakeGoogleToken)}&providerId=google.com`,
          returnSecureToken: true,
          returnIdpCredential: true,
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
    await expect(page.getByText("Gia Google")).toBeVisible();
  });
});

test.describe("identity errors show human messages and keep what was typed (app/auth/auth-errors.ts)", () => {
  test("email-already-in-use", async ({ page, newAccount }) => {
    const account = await newAccount();
    await page.goto("/login?mode=signup");
    await fillSignIn(page, account.email, "another-pass-1");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("alert")).toHaveText(
      "An account with this email already exists. Log in instead, or reset your password.",
    );
    await expect(page.getByLabel("Email")).toHaveValue(account.email);
    await expect(page.getByLabel("Password", { exact: true })).toHaveValue("another-pass-1");
  });

  test("wrong-password / invalid-credential", async ({ page, newAccount }) => {
    const account = await newAccount();
    await page.goto("/login");
    await fillSignIn(page, account.email, "not-the-password");
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(page.getByRole("alert")).toHaveText(
      "That email and password don't match. Check them and try again, or reset your password.",
    );
    await expect(page.getByLabel("Password", { exact: true })).toHaveValue("not-the-password");
  });

  test("user-not-found: the same message as a wrong password (no account is revealed)", async ({ page }) => {
    await page.goto("/login");
    await fillSignIn(page, `nobody-${Date.now()}@example.com`, "whatever-1");
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(page.getByRole("alert")).toHaveText(
      "That email and password don't match. Check them and try again, or reset your password.",
    );
  });

  test("user-disabled signs the user out", async ({ page, context, firebase, newAccount }) => {
    const account = await newAccount();
    await firebase.auth.updateUser(account.uid, { disabled: true });
    await page.goto("/login");
    await fillSignIn(page, account.email, account.password);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(page.getByRole("alert")).toHaveText(
      "This account has been disabled. Contact the site's administrators if you think this is a mistake.",
    );
    expect((await context.cookies()).find((c) => c.name === "__session")).toBeUndefined();
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();
  });

  test("an address with “/” cannot sign up or log in, says why, and keeps what was typed (docs/decisions/075)", async ({
    page,
  }) => {
    const unusable =
      "This email address can't be used here: an address with “/” in it (or of another rare form our account records can't store) can't log in. Please use another address.";
    // Sign-up says so before any account is made.
    const typed = `a/new-${Date.now()}@example.com`;
    await page.goto("/login?mode=signup");
    await fillSignIn(page, typed, "abcdef-1-pass");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("alert")).toHaveText(unusable);
    await expect(page.getByLabel("Email")).toHaveValue(typed);
    await expect(page.getByLabel("Password", { exact: true })).toHaveValue("abcdef-1-pass");
    await expect(idTokenFor(env.authHost, { email: typed, password: "abcdef-1-pass" })).rejects.toThrow(
      /EMAIL_NOT_FOUND|INVALID_LOGIN_CREDENTIALS/,
    );

    // An account that exists already (made at the identity service directly) is refused by the server.
    const existing = { email: `x/users/old-${Date.now()}@example.com`, password: "abcdef-2-pass" };
    const made = await fetch(
      `http://${env.authHost}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-api-key`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...existing, returnSecureToken: true }),
      },
    );
    expect(made.ok).toBe(true);
    await page.getByRole("button", { name: "Have an account? Log in" }).click();
    await fillSignIn(page, existing.email, existing.password);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(page.getByRole("alert")).toHaveText(unusable);
    await expect(page.getByLabel("Email")).toHaveValue(existing.email);
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();
  });

  const scripted: Array<[string, string]> = [
    [
      "TOO_MANY_ATTEMPTS_TRY_LATER",
      "Too many attempts in a short time. Please wait a few minutes and try again, or reset your password.",
    ],
    ["TOKEN_EXPIRED", "Your login has expired. Please log in again."],
    ["CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "For your security, please log in again to continue."],
  ];
  for (const [serverCode, message] of scripted) {
    test(`${serverCode} from the identity service`, async ({ page, newAccount }) => {
      const account = await newAccount();
      await identityAnswers(page, serverCode);
      await page.goto("/login");
      await fillSignIn(page, account.email, account.password);
      await page.getByRole("button", { name: "Log in", exact: true }).click();
      await expect(page.getByRole("alert")).toHaveText(message);
      await expect(page.getByLabel("Email")).toHaveValue(account.email);
      await expect(page.getByRole("alert")).not.toContainText("auth/");
    });
  }

  test("network-request-failed", async ({ page, newAccount }) => {
    const account = await newAccount();
    await page.route("**/accounts:signInWithPassword**", (route) => route.abort("internetdisconnected"));
    await page.goto("/login");
    await fillSignIn(page, account.email, account.password);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(page.getByRole("alert")).toHaveText(
      "We couldn't reach the login service. Check your connection and try again.",
    );
    await expect(page.getByLabel("Password", { exact: true })).toHaveValue(account.password);
  });
});
