import { pastSignInSecond } from "../support/identity";
import { env, expect, mainNav, sessionCookieOf, signIn, test } from "./fixtures";

test.describe("logout", () => {
  test("by the nav's Logout button: logged out, on /, cookie gone", async ({ page, context, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/tools");
    await mainNav(page).getByRole("button", { name: "Logout" }).click();
    await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/$/);
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();
    expect((await context.cookies()).find((c) => c.name === "__session")).toBeUndefined();
  });

  test("the old cookie is refused after logout, even if replayed", async ({ page, context, browser, newAccount }) => {
    await signIn(page, await newAccount());
    const [cookie] = (await context.cookies()).filter((c) => c.name === "__session");
    await page.goto("/");
    await mainNav(page).getByRole("button", { name: "Logout" }).click();
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();

    const replay = await browser.newContext({ baseURL: env.baseURL });
    await replay.addCookies([cookie]);
    const replayPage = await replay.newPage();
    await replayPage.goto("/dashboard");
    await expect(replayPage).toHaveURL(/\/login\?redirectTo=%2Fdashboard$/);
    await replay.close();
  });

  test("by GET when typed in the address bar", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/api/auth/logout");
    await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/$/);
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();
  });

  test("a cross-site GET changes nothing", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.route("http://evil.test/**", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<a href="${env.baseURL}/api/auth/logout">win a prize</a>`,
      }),
    );
    await page.goto("http://evil.test/");
    await page.getByRole("link", { name: "win a prize" }).click();
    await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/$/);
    await expect(mainNav(page).getByRole("button", { name: "Logout" })).toBeVisible();
    await page.goto("/dashboard");
    await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  });

  test("the nav shows a pending state while logging out", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/");
    // Hold the logout request so the in-flight state can be seen.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/auth/logout**", async (route) => {
      await held;
      await route.continue();
    });
    await mainNav(page).getByRole("button", { name: "Logout" }).click();
    await expect(mainNav(page).getByRole("status")).toHaveText("Logging out…");
    await expect(mainNav(page).getByRole("link", { name: "Assistant" })).toHaveCount(0);
    release();
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();
  });
});

test.describe("freshness (ADR 002): changes show within the cache TTL", () => {
  test("a disabled user is logged out", async ({ page, context, firebase, newAccount }) => {
    const account = await newAccount();
    await signIn(page, account);
    await page.goto("/dashboard");
    await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
    await firebase.auth.updateUser(account.uid, { disabled: true });
    await expect(async () => {
      await page.goto("/dashboard");
      await expect(page).toHaveURL(/\/login\?redirectTo=%2Fdashboard$/, { timeout: 500 });
    }).toPass({ timeout: 10_000 });
    expect((await context.cookies()).find((c) => c.name === "__session")).toBeUndefined();
  });

  test("a revoked session is logged out", async ({ page, firebase, newAccount }) => {
    const account = await newAccount();
    await signIn(page, account);
    await page.goto("/");
    await pastSignInSecond(await sessionCookieOf(page));
    await firebase.auth.revokeRefreshTokens(account.uid);
    await expect(async () => {
      await page.goto("/");
      await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible({ timeout: 500 });
    }).toPass({ timeout: 10_000 });
  });

  test("a role change shows in the nav", async ({ page, firebase, newAccount }) => {
    const account = await newAccount();
    await signIn(page, account);
    await page.goto("/");
    await expect(mainNav(page).getByRole("link", { name: "Admin" })).toHaveCount(0);
    await firebase.firestore.collection("users").doc(account.email).set({ stripeRole: "admin" });
    await expect(async () => {
      await page.goto("/");
      await expect(mainNav(page).getByRole("link", { name: "Admin" })).toBeVisible({ timeout: 500 });
    }).toPass({ timeout: 10_000 });
    await firebase.firestore.collection("users").doc(account.email).set({ stripeRole: "" });
    // /admin reads the role fresh: refused at once.
    const response = await page.goto("/admin/messages");
    expect(response?.status()).toBe(403);
  });
});
