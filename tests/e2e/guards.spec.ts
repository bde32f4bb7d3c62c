import { expect, mainNav, signIn, test } from "./fixtures";

test.describe("protected pages and the admin gate", () => {
  for (const path of ["/nuvara", "/dashboard"]) {
    test(`${path} sends a signed-out visitor to /login?redirectTo=${path}`, async ({ page }) => {
      await page.goto(path);
      await expect(page).toHaveURL(`/login?redirectTo=${encodeURIComponent(path)}`);
      await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
    });
  }

  test("/tools is public; using a tool sends a signed-out visitor to /login?redirectTo=<the tool>", async ({
    page,
  }) => {
    const response = await page.goto("/tools");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: "Tools" })).toBeVisible();
    await page.getByRole("link", { name: "Summarize" }).click();
    await expect(page).toHaveURL("/login?redirectTo=%2Ftools%2Fsummarize");
    await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  });

  test("/admin/messages: anonymous is sent to login", async ({ page }) => {
    await page.goto("/admin/messages");
    await expect(page).toHaveURL("/login?redirectTo=%2Fadmin%2Fmessages");
  });

  test("/admin/messages: a signed-in user gets 403 and no admin data", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: "premium" }));
    const response = await page.goto("/admin/messages");
    expect(response?.status()).toBe(403);
    await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
    await expect(page.getByText("This page is for admins only.")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Admin messages" })).toHaveCount(0);
    // A direct POST to its action, same-origin (so past the cross-site check), is refused by the role check too.
    const post = await page.request.post("/admin/messages?_data=routes%2Fadmin.messages", {
      form: { intent: "x" },
      headers: { Origin: new URL(page.url()).origin },
    });
    expect(post.status()).toBe(403);
    expect(await post.json()).toEqual({ error: "This page is for admins only." });
  });

  test("/admin/messages: an admin gets the page", async ({ page, newAccount }) => {
    const admin = await newAccount({ role: "admin" });
    await signIn(page, admin);
    const response = await page.goto("/admin/messages");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "Admin messages" })).toBeVisible();
    await expect(page.getByText(admin.email)).toBeVisible();
    await expect(mainNav(page).getByRole("link", { name: "Admin" })).toHaveAttribute("aria-current", "page");
  });

  test("signed-in pages show their heading and the user", async ({ page, newAccount }) => {
    const account = await newAccount({ displayName: "Sam Signed" });
    await signIn(page, account);
    for (const [path, heading] of [
      ["/nuvara", "Assistant"],
      ["/dashboard", "Dashboard"],
    ]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
      await expect(page.getByText("Sam Signed")).toBeVisible();
    }
    // /tools is public; signed in, it has the user's own switches for the assistant's functions.
    await page.goto("/tools");
    await expect(page.getByRole("heading", { level: 1, name: "Tools" })).toBeVisible();
    await expect(page.getByRole("switch", { name: "Calculator" })).toBeVisible();
  });
});

test.describe("redirectTo", () => {
  test("is honoured after logging in through the form", async ({ page, newAccount }) => {
    const account = await newAccount();
    await page.goto("/dashboard");
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password", { exact: true }).fill(account.password);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  });

  const hostile = [
    "//evil.example/",
    "/\\evil.example",
    "https://evil.example/",
    "javascript:alert(1)",
    "%2F%2Fevil.example",
    "/%2F/evil.example",
    "%252F%252Fevil.example",
    "/%5Cevil.example",
    "\\\\evil.example",
    "/\tevil",
  ];
  for (const value of hostile) {
    test(`refuses ${JSON.stringify(value)} and falls back to /`, async ({ page, newAccount }) => {
      await signIn(page, await newAccount());
      await page.goto(`/login?redirectTo=${encodeURIComponent(value)}`);
      await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/$/);
    });
  }

  test("a signed-in visitor opening /login goes to the safe redirectTo", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/login?redirectTo=%2Ftools");
    await expect(page).toHaveURL(/\/tools$/);
  });
});
