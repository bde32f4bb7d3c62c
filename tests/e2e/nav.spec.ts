import { env, expect, mainNav, signIn, test } from "./fixtures";

test.describe("navigation (docs/features.md)", () => {
  test("logged out: Assistant, Dashboard, Tools and Login; no Admin, no Logout", async ({ page }) => {
    await page.goto("/");
    await expect(page).toHaveTitle("Nuvara²");
    const nav = mainNav(page);
    const brand = nav.getByRole("link", { name: "Nuvara2" });
    await expect(brand).toHaveAttribute("href", "/");
    await expect(brand.locator("sup")).toHaveText("2");
    await expect(nav.getByRole("link", { name: "Assistant" })).toHaveAttribute("href", "/nuvara");
    await expect(nav.getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    await expect(nav.getByRole("link", { name: "Tools" })).toHaveAttribute("href", "/tools");
    await expect(nav.getByRole("link", { name: "Login" })).toHaveAttribute("href", "/login");
    await expect(nav.getByRole("link", { name: "Admin" })).toHaveCount(0);
    await expect(nav.getByRole("button", { name: "Logout" })).toHaveCount(0);
  });

  test("the nav is right in the server's HTML, before any script runs", async ({ page, newAccount }) => {
    const account = await newAccount({ role: "admin" });
    await signIn(page, account);
    const html = await (await page.request.get("/")).text();
    const nav = html.slice(html.indexOf("<nav"), html.indexOf("</nav>"));
    expect(nav).toContain('href="/admin/messages"');
    expect(nav).toContain(">Logout<");
    expect(nav).not.toContain('href="/login"');
  });

  test("logged in as a user: Logout button, no Admin, no Login", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: "premium" }));
    await page.goto("/");
    const nav = mainNav(page);
    await expect(nav.getByRole("button", { name: "Logout" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Login" })).toHaveCount(0);
    await expect(nav.getByRole("link", { name: "Admin" })).toHaveCount(0);
  });

  test("logged in as an admin: Admin link to /admin/messages", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: "admin" }));
    await page.goto("/");
    await expect(mainNav(page).getByRole("link", { name: "Admin" })).toHaveAttribute("href", "/admin/messages");
  });

  test("an unverified address with role admin gets no Admin link", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: "admin", verified: false }));
    await page.goto("/");
    await expect(mainNav(page).getByRole("button", { name: "Logout" })).toBeVisible();
    await expect(mainNav(page).getByRole("link", { name: "Admin" })).toHaveCount(0);
  });

  test("aria-current marks the current page, and titles read 'Page · Nuvara²'", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/tools");
    await expect(page).toHaveTitle("Tools · Nuvara²");
    await expect(mainNav(page).getByRole("link", { name: "Tools" })).toHaveAttribute("aria-current", "page");
    await expect(mainNav(page).getByRole("link", { name: "Dashboard" })).not.toHaveAttribute("aria-current", "page");
    await mainNav(page).getByRole("link", { name: "Dashboard" }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page).toHaveTitle("Dashboard · Nuvara²");
    await expect(mainNav(page).getByRole("link", { name: "Dashboard" })).toHaveAttribute("aria-current", "page");
  });

  test("narrow screens: a menu button reveals the links, keyboard accessible", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto("/");
    const nav = mainNav(page);
    const menu = nav.getByRole("button", { name: "Menu" });
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(nav.getByRole("link", { name: "Assistant" })).toBeHidden();
    await menu.focus();
    await page.keyboard.press("Enter");
    await expect(menu).toHaveAttribute("aria-expanded", "true");
    await expect(nav.getByRole("link", { name: "Assistant" })).toBeVisible();
    await page.keyboard.press("Tab");
    await expect(nav.getByRole("link", { name: "Assistant" })).toBeFocused();
  });

  test("dark theme follows the system setting", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/");
    const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: "light" });
    const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(dark).not.toBe(light);
    expect(light).toBe("rgb(255, 255, 255)");
  });

  test("an unknown page is a friendly 404 with the nav", async ({ page }) => {
    const response = await page.goto("/no/such/page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();
    await expect(page).toHaveTitle("Page not found · Nuvara²");
  });
});

test("the home page calls to action by state", async ({ page, newAccount }) => {
  await page.goto("/");
  await expect(page.getByRole("main").getByRole("link", { name: "Log in", exact: true })).toBeVisible();
  await signIn(page, await newAccount({ displayName: "Hana Home" }));
  await page.goto("/");
  await expect(page.getByText("Welcome back, Hana Home.")).toBeVisible();
  await expect(page.getByRole("main").getByRole("link", { name: "Open the assistant" })).toHaveAttribute(
    "href",
    "/nuvara",
  );
  void env;
});
