import type { Page } from "@playwright/test";
import { visitorWorkOver } from "../support/contact-work";
import { env, expect, mainNav, signIn, test } from "./fixtures";

/** The admin area in the browser: guards, the inbox, the badge, roles and the audit trail. */

function marker(label: string) {
  return `${label}-${Math.random().toString(36).slice(2, 10)}`;
}

/** A contact message as a visitor's browser would send it, work included (distinct addresses stay under the per-email limit). */
async function contact(page: Page, message: string, email = `${marker("sender")}@example.com`) {
  const response = await page.request.post("/api/contact", {
    form: { email, message, ...(await visitorWorkOver(page.request)) },
    headers: { Origin: env.baseURL },
  });
  expect(response.status()).toBe(201);
}

/** The new-message count the nav's Admin link announces (0 without a badge). */
async function newCount(page: Page): Promise<number> {
  await page.goto("/");
  const text = await mainNav(page)
    .getByRole("link", { name: /^Admin/ })
    .evaluate((el) => el.textContent ?? "");
  const match = /(\d+) new message/.exec(text);
  return match ? Number(match[1]) : 0;
}

test.describe("guards on every admin page and action", () => {
  const pages = ["/admin", "/admin/messages", "/admin/users", "/admin/messages/00000000-0000-4000-8000-000000000000"];

  for (const path of pages) {
    test(`${path}: anonymous → login`, async ({ page }) => {
      await page.goto(path);
      await expect(page).toHaveURL(`/login?redirectTo=${encodeURIComponent(path)}`);
    });
  }

  test("a signed-in user gets 403 on every page and every direct POST", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: "premium" }));
    for (const path of pages) {
      const response = await page.goto(path);
      expect(response?.status()).toBe(403);
      await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
      await expect(page.getByRole("navigation", { name: "Admin sections" })).toHaveCount(0);
    }
    const posts: Array<[string, string, Record<string, string>]> = [
      ["/admin/messages", "routes/admin.messages", { intent: "archive", ids: "00000000-0000-4000-8000-000000000000" }],
      [
        "/admin/messages/00000000-0000-4000-8000-000000000000",
        "routes/admin.messages_.$messageId",
        { intent: "archive" },
      ],
      ["/admin/users", "routes/admin.users", { email: "someone@example.com", role: "admin" }],
    ];
    for (const [path, routeId, form] of posts) {
      const post = await page.request.post(`${path}?_data=${encodeURIComponent(routeId)}`, {
        form,
        headers: { Origin: env.baseURL },
      });
      expect(post.status()).toBe(403);
    }
  });

  test("an admin gets every page, with the tabs", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: "admin" }));
    await page.goto("/admin");
    await expect(page).toHaveURL("/admin/messages");
    await expect(page.getByRole("heading", { level: 1, name: "Admin messages" })).toBeVisible();
    await page.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Users" }).click();
    await expect(page).toHaveURL("/admin/users");
    await expect(page.getByRole("heading", { level: 1, name: "Admin users" })).toBeVisible();
    await expect(page).toHaveTitle("Admin users · Nuvara²");
  });
});

test.describe("the inbox", () => {
  test("a visitor's message reaches the inbox: the badge counts it, opening it shows it in full as text", async ({
    page,
    browser,
    newAccount,
  }) => {
    const text = marker("hello");
    const hostile = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> ${text}`;
    const visitor = await browser.newPage();
    await visitor.goto("/");
    const form = visitor.getByRole("region", { name: "Contact us" });
    await form.getByLabel("Your email").fill("Visitor.Vic@example.com");
    await form.getByLabel("Message").fill(hostile);
    await form.getByRole("button", { name: "Send message" }).click();
    await expect(form.getByRole("status")).toHaveText("Thanks! Your message was sent. We'll get back to you by email.");
    await expect(form.getByLabel("Message")).toHaveValue("");
    await visitor.close();

    await signIn(page, await newAccount({ role: "admin" }));
    const before = await newCount(page);
    expect(before).toBeGreaterThan(0);
    await expect(
      mainNav(page).getByRole("link", { name: `Admin (${before} new message${before === 1 ? "" : "s"})`, exact: true }),
    ).toBeVisible();

    await mainNav(page)
      .getByRole("link", { name: /^Admin/ })
      .click();
    await page.getByRole("searchbox", { name: "Search messages" }).fill(text);
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page).toHaveURL(new RegExp(`q=${text}`));
    const row = page.getByRole("row").filter({ hasText: "visitor.vic@example.com" });
    await expect(row).toHaveCount(1);
    await expect(row.getByRole("cell", { name: "New" })).toBeVisible();
    await row.getByRole("link").click();

    await expect(page.getByRole("heading", { level: 1, name: "Contact from visitor.vic@example.com" })).toBeVisible();
    await expect(page.getByText(hostile)).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await expect(page.getByRole("definition").filter({ hasText: "logged out" })).toBeVisible();
    // Opened, it is read: the badge goes down by one.
    expect(await newCount(page)).toBe(before - 1);
  });

  test("a signed-in user's message from the dashboard carries their identity and role", async ({
    page,
    browser,
    newAccount,
  }) => {
    const member = await newAccount({ role: "premium", displayName: "Mia Member" });
    const text = marker("member");
    const memberPage = await browser.newPage();
    await signIn(memberPage, member);
    await memberPage.goto("/dashboard");
    const form = memberPage.getByRole("region", { name: "Contact us" });
    await expect(form.getByLabel("Your email")).toHaveCount(0);
    await expect(form.getByText(`We'll reply to ${member.email}`)).toBeVisible();
    await form.getByLabel("Message").fill(text);
    await form.getByRole("button", { name: "Send message" }).click();
    await expect(form.getByRole("status")).toContainText("Thanks!");
    await memberPage.close();

    await signIn(page, await newAccount({ role: "admin" }));
    await page.goto(`/admin/messages?q=${text}`);
    await page.getByRole("link", { name: text }).click();
    await expect(page.getByRole("heading", { level: 1, name: `Contact from ${member.email}` })).toBeVisible();
    await expect(page.getByRole("definition").filter({ hasText: "Mia Member" })).toContainText("(logged in, verified)");
    await expect(page.getByRole("definition").filter({ hasText: /^Premium$/ })).toBeVisible();
  });

  test("filters, pagination past 25, and bulk actions with a confirmed delete", async ({ page, newAccount }) => {
    const tag = marker("bulk");
    for (let i = 0; i < 27; i++) await contact(page, `${tag} number ${String(i).padStart(2, "0")}`);
    await signIn(page, await newAccount({ role: "admin" }));
    await page.goto(`/admin/messages?q=${tag}`);

    const rows = page.getByRole("table", { name: "Messages, newest first" }).getByRole("row");
    await expect(rows).toHaveCount(26); // the header and 25 messages
    await expect(page.getByRole("link", { name: `${tag} number 26` })).toBeVisible();
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Older messages →" }).click();
    await expect(rows).toHaveCount(3);
    await expect(page.getByRole("link", { name: `${tag} number 00` })).toBeVisible();
    await expect(page.getByRole("link", { name: `${tag} number 26` })).toHaveCount(0);
    await page.getByRole("link", { name: "← Newer messages" }).click();
    await expect(rows).toHaveCount(26);

    // Archive two; they leave the default view and show under Archived.
    await page.getByRole("checkbox", { name: new RegExp(`${tag} number 26$`) }).check();
    await page.getByRole("checkbox", { name: new RegExp(`${tag} number 25$`) }).check();
    await page.getByRole("button", { name: "Archive" }).click();
    await expect(page.getByRole("status")).toHaveText("2 messages archived.");
    await expect(page.getByRole("link", { name: `${tag} number 26` })).toHaveCount(0);
    await page.getByLabel("Status").selectOption("archived");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(rows).toHaveCount(3);

    // Delete asks first; cancelling keeps them, confirming deletes them.
    await page.getByRole("checkbox", { name: "Select all on this page" }).check();
    await page.getByRole("button", { name: "Delete…" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Delete these 2 messages?" });
    await expect(confirm).toBeVisible();
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await expect(confirm).toHaveCount(0);
    await expect(rows).toHaveCount(3);
    await page.getByRole("checkbox", { name: "Select all on this page" }).check();
    await page.getByRole("button", { name: "Delete…" }).click();
    await page.getByRole("button", { name: "Yes, delete these 2 messages" }).click();
    await expect(page.getByRole("status")).toHaveText("2 messages deleted.");
    await expect(page.getByText("No messages match these filters.")).toBeVisible();

    // Kind filter: these are all contact messages.
    await page.goto(`/admin/messages?q=${tag}&kind=report`);
    await expect(page.getByText("No messages match these filters.")).toBeVisible();
  });
});

test.describe("the contact form", () => {
  test("bad input shows field errors and keeps what was typed; too many messages get a plain-words 429", async ({
    page,
  }) => {
    await page.goto("/");
    const form = page.getByRole("region", { name: "Contact us" });
    const text = marker("typed");
    await form.getByLabel("Your email").fill("not-an-email");
    await form.getByLabel("Message").fill(text);
    await form.getByRole("button", { name: "Send message" }).click();
    await expect(form.getByText("Please enter a valid email address, like name@example.com.")).toBeVisible();
    await expect(form.getByLabel("Your email")).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByLabel("Message")).toHaveValue(text);

    // The default limit is 5 messages an hour per email address.
    const email = `${marker("often")}@example.com`;
    for (let i = 0; i < 5; i++) await contact(page, `try ${i}`, email);
    await form.getByLabel("Your email").fill(email);
    await form.getByRole("button", { name: "Send message" }).click();
    await expect(form.getByRole("alert")).toContainText(
      "You've sent a lot of messages in a short time. Please try again in",
    );
    await expect(form.getByLabel("Message")).toHaveValue(text);
  });
});

test("a visitor's browser does the form's work, showing its progress, and sends; the answer clears the form", async ({
  page,
}) => {
  // Web Crypto answers only once the test lets it, so the work in progress can be seen.
  await page.addInitScript(() => {
    const digest = crypto.subtle.digest.bind(crypto.subtle);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    (window as unknown as { releaseWork: () => void }).releaseWork = release;
    crypto.subtle.digest = async (...args: Parameters<SubtleCrypto["digest"]>) => {
      await released;
      return digest(...args);
    };
  });
  await page.goto("/");
  const form = page.getByRole("region", { name: "Contact us" });
  const text = marker("worked");
  await form.getByLabel("Your email").fill(`${marker("visitor")}@example.com`);
  await form.getByLabel("Message").fill(text);
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(form.getByRole("progressbar", { name: "Preparing your message" })).toBeVisible();
  await expect(form.getByRole("status")).toHaveText("Preparing your message (a moment's check that keeps spam out)…");
  await expect(form.getByRole("button", { name: "Sending…" })).toBeDisabled();
  await page.evaluate(() => (window as unknown as { releaseWork: () => void }).releaseWork());
  await expect(form.getByRole("status")).toHaveText("Thanks! Your message was sent. We'll get back to you by email.");
  await expect(form.getByRole("progressbar")).toHaveCount(0);
  await expect(form.getByLabel("Message")).toHaveValue("");
  // A second message gets a challenge of its own (the first was used).
  await form.getByLabel("Your email").fill(`${marker("visitor")}@example.com`);
  await form.getByLabel("Message").fill(`${text} again`);
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(form.getByLabel("Message")).toHaveValue("");
  await expect(form.getByRole("status")).toHaveText("Thanks! Your message was sent. We'll get back to you by email.");
});

test("without JavaScript a visitor is told sending needs it; a signed-in member still sends", async ({
  browser,
  newAccount,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto("/");
  const form = page.getByRole("region", { name: "Contact us" });
  await expect(
    form.getByText("Before sending, your browser does a moment's work that keeps spam out, which needs JavaScript."),
  ).toBeVisible();
  await form.getByLabel("Your email").fill(`${marker("plain")}@example.com`);
  await form.getByLabel("Message").fill("Sent from a browser without scripts");
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(page).toHaveURL(/\/\?contact=needs-script#contact$/);
  await expect(form.getByRole("alert")).toContainText("without logging in, sending needs JavaScript");

  await signIn(page, await newAccount());
  await page.goto("/");
  await form.getByLabel("Message").fill("Sent by a member without scripts");
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(page).toHaveURL(/\/\?contact=sent#contact$/);
  await expect(form.getByRole("status")).toHaveText("Thanks! Your message was sent. We'll get back to you by email.");
  await context.close();
});

// Roles, accounts and usage on /admin/users: tests/e2e/admin-users.spec.ts.
