import type { Browser, Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { replies, scriptedModel, sendMessage } from "./assistant-support";
import { env, expect, signIn, test } from "./fixtures";
import { SHOTS_DIR } from "./shots";

/** Share links: from the chat's header to a public read-only page, continued by a visitor, revoked from the dashboard. */

const SHOTS = SHOTS_DIR;

test.beforeEach(async () => {
  await scriptedModel.reset();
});

async function startConversation(page: Page, text: string, reply: string) {
  await page.goto("/nuvara");
  await scriptedModel.enqueue({ type: "text", text: reply });
  await sendMessage(page, text);
  await expect(replies(page)).toHaveCount(1);
  await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);
  await expect(replies(page).getByRole("button", { name: "Regenerate" })).toBeVisible();
}

async function signedOutPage(browser: Browser, options: Parameters<Browser["newContext"]>[0] = {}) {
  const context = await browser.newContext({ baseURL: env.baseURL, ...options });
  return { context, page: await context.newPage() };
}

test("share from the chat, read it logged out, continue it as a visitor, revoke it from the dashboard", async ({
  page,
  browser,
  newAccount,
}) => {
  // A long journey: the owner, four signed-out visitors (two sizes, two themes, each checked with axe), a continuing visitor, the dashboard.
  test.setTimeout(90_000);
  const owner = await newAccount({ displayName: "Owner Private" });
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, owner);
  await startConversation(page, "Plan a day in Lisbon", "Start at **Belém** and end in *Alfama*.");

  await page.getByRole("button", { name: "Share", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Share this conversation" });
  await expect(dialog.getByRole("button", { name: "Create link" })).toBeVisible();
  await dialog.getByRole("textbox", { name: "Show my name as (optional)" }).fill("x".repeat(80));
  await expectNoAxeViolations(page, "share dialog");
  await dialog.getByRole("textbox", { name: "Show my name as (optional)" }).fill("Ana");
  await dialog.getByRole("button", { name: "Create link" }).click();
  const linkBox = dialog.getByRole("textbox", { name: "Link" });
  await expect(linkBox).toHaveValue(new RegExp(`^${env.baseURL}/s/[A-Za-z0-9_-]{22,}$`));
  const url = await linkBox.inputValue();
  await expectNoAxeViolations(page, "share dialog with a link");
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/share-dialog-1280-light.png` });
  await dialog.getByRole("button", { name: "Copy link" }).click();
  await expect(dialog.getByRole("button", { name: "Copy link" })).toHaveText("Copied");
  await expectNoAxeViolations(page, "share dialog, link copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toBeHidden();

  // Opened again: the same link, with Revoke.
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(dialog.getByRole("textbox", { name: "Link" })).toHaveValue(url);
  await expect(dialog.getByRole("button", { name: "Revoke" })).toBeVisible();
  await dialog.getByRole("button", { name: "Done" }).click();

  // Signed out, at both sizes and in both themes.
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    for (const colorScheme of ["light", "dark"] as const) {
      const visitor = await signedOutPage(browser, { viewport, colorScheme });
      const response = await visitor.page.goto(url);
      expect(response?.status()).toBe(200);
      expect(response?.headers()["x-robots-tag"]).toBe("noindex");
      await expect(visitor.page.getByRole("heading", { level: 1, name: "Plan a day in Lisbon" })).toBeVisible();
      await expect(visitor.page.getByText("Shared by Ana")).toBeVisible();
      const log = visitor.page.getByRole("log", { name: "Shared conversation" });
      await expect(log.getByRole("article", { name: "User" })).toHaveText(/Plan a day in Lisbon/);
      await expect(log.getByRole("article", { name: "Assistant" }).locator("strong")).toHaveText("Belém");
      await expect(visitor.page.getByRole("textbox")).toHaveCount(0);
      await expect(visitor.page.getByText(owner.email)).toHaveCount(0);
      await expect(visitor.page.getByText("Owner Private")).toHaveCount(0);
      await expect(visitor.page.getByRole("link", { name: "Log in to continue" })).toHaveAttribute(
        "href",
        `/login?redirectTo=${encodeURIComponent(new URL(url).pathname)}`,
      );
      await expectNoAxeViolations(visitor.page, `shared page ${viewport.width} ${colorScheme}`);
      if (SHOTS)
        await visitor.page.screenshot({ path: `${SHOTS}/share-${viewport.width}-${colorScheme}.png`, fullPage: true });
      await visitor.context.close();
    }
  }

  // A signed-in visitor continues it as their own conversation.
  const other = await signedOutPage(browser);
  await signIn(other.page, await newAccount());
  await other.page.goto(url);
  await other.page.getByRole("button", { name: "Continue this conversation" }).click();
  await expect(other.page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);
  await expect(replies(other.page).locator("strong")).toHaveText("Belém");
  await expect(other.page.getByRole("heading", { level: 2, name: "Plan a day in Lisbon" })).toBeVisible();
  await expect(other.page.getByRole("textbox", { name: "Message" })).toBeVisible();
  await other.context.close();

  // Revoked from the dashboard: gone from the list, and the link is a 404 at once.
  await page.goto("/dashboard");
  const section = page.getByRole("region", { name: "Shared links" });
  await expect(section.getByRole("link", { name: "Plan a day in Lisbon" })).toHaveAttribute(
    "href",
    new URL(url).pathname,
  );
  await expectNoAxeViolations(page, "dashboard with a shared link");
  if (SHOTS) await section.screenshot({ path: `${SHOTS}/dashboard-shared-links.png` });
  await section.getByRole("button", { name: /^Revoke/ }).click();
  await expect(section.getByText("No shared links. Use Share in a conversation to make one.")).toBeVisible();
  const late = await signedOutPage(browser);
  const gone = await late.page.goto(url);
  expect(gone?.status()).toBe(404);
  await expect(late.page.getByText("This shared conversation doesn't exist or is no longer shared.")).toBeVisible();
  await late.context.close();
});
