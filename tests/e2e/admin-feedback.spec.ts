import type { Browser, Page } from "@playwright/test";
import type { TestAccount } from "../support/identity";
import { expectNoAxeViolations } from "./a11y";
import { expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";
import { env, expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";

/**
 * The admin Feedback page: who rated a reply (by email), the reply as plain
 * text, filters kept in the address, and the way into a reported reply's
 * conversation (audited, docs/decisions/063).
 */

const SIZES = [
  { name: "1280×800", viewport: { width: 1280, height: 800 } },
  { name: "390×844", viewport: { width: 390, height: 844 } },
] as const;

/** A user's reply rated 👎 and, with `report`, reported; returns the user and the marker in the reply. */
async function ratedBadReply(browser: Browser, user: TestAccount, { report = false } = {}) {
  const tag = `rated-${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  await scriptedModel.enqueue({ type: "text", text: `**Total:** 19.99 * 3 = 59.97 _${tag}_` });
  const context = await browser.newContext({ baseURL: env.baseURL });
  const page = await context.newPage();
  await signIn(page, user);
  await page.goto("/nuvara");
  await sendMessage(page, `What do three cost? ${tag}`);
  await expect(replies(page)).toHaveCount(1);
  await expectConversationUrl(page);
  await replies(page).getByRole("button", { name: "Bad reply" }).click();
  await expect(replies(page).getByRole("button", { name: "Bad reply" })).toHaveAttribute("aria-pressed", "true");
  if (report) {
    await replies(page).getByRole("button", { name: "Report" }).click();
    const dialog = page.getByRole("dialog", { name: "Report this reply" });
    await dialog.getByRole("radio", { name: "Wrong" }).check();
    await dialog.getByRole("button", { name: "Send report" }).click();
    await expect(dialog.getByText("Your report was sent to the admins.")).toBeVisible();
  }
  await context.close();
  return tag;
}

const rowOf = (page: Page, tag: string) => page.getByRole("row").filter({ hasText: tag });

for (const size of SIZES) {
  test.describe(`at ${size.name}`, () => {
    test.use({ viewport: size.viewport });

    test("a rating shows its rater's email, the reply as plain text, and a reported one opens its conversation, audited", async ({
      page,
      browser,
      newAccount,
    }) => {
      const user = await newAccount();
      const tag = await ratedBadReply(browser, user, { report: true });
      await signIn(page, await newAccount({ role: "admin" }));
      await page.goto("/admin/feedback");

      const row = rowOf(page, tag);
      await expect(row).toContainText(`Total: 19.99 * 3 = 59.97 ${tag}`);
      await expect(row).not.toContainText("**");
      await expect(row).toContainText(user.email);
      await expect(row).toContainText("Bad");
      await expect(row).toContainText("test-model");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.viewport.width);
      await expectNoAxeViolations(page, `the feedback page at ${size.name}`);
      await reviewShots(page, `feedback-${size.viewport.width}`, { fullPage: true });

      await row.getByRole("link", { name: "Open conversation" }).click();
      await expect(page).toHaveURL(/\/admin\/messages\/[0-9a-f-]+\/conversation$/);
      await expect(page.getByRole("note")).toContainText("Your opening of it was recorded in the admin audit log.");
      await expect(page.getByRole("log", { name: "Shared conversation" })).toContainText(`What do three cost? ${tag}`);
    });
  });
}

test("filters by rating and model stay in the address and work without JavaScript; an empty result says so", async ({
  browser,
  newAccount,
}) => {
  const user = await newAccount();
  const tag = await ratedBadReply(browser, user);
  const context = await browser.newContext({ baseURL: env.baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  await signIn(page, await newAccount({ role: "admin" }));
  await page.goto("/admin/feedback");
  await expect(rowOf(page, tag)).toContainText("Not reported");

  await page.getByRole("combobox", { name: "Rating" }).selectOption({ label: "Bad (👎)" });
  await page.getByRole("combobox", { name: "Model" }).selectOption("test-model");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/\/admin\/feedback\?rating=down&model=test-model$/);
  await expect(rowOf(page, tag)).toBeVisible();
  await expect(page.getByRole("combobox", { name: "Rating" })).toHaveValue("down");

  await page.getByRole("combobox", { name: "Rating" }).selectOption({ label: "Good (👍)" });
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/rating=up/);
  await expect(rowOf(page, tag)).toHaveCount(0);

  await page.goto("/admin/feedback?rating=down&model=no-such-model");
  await expect(page.getByRole("status")).toHaveText("No feedback matches these filters.");
  await expect(page.getByRole("combobox", { name: "Model" })).toHaveValue("no-such-model");
  await page.getByRole("link", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/admin\/feedback$/);
  await expect(rowOf(page, tag)).toBeVisible();

  await page.goto("/admin/feedback?rating=sideways");
  await expect(page.getByRole("alert")).toHaveText('"sideways" is not a rating; showing every rating.');
  await expect(rowOf(page, tag)).toBeVisible();
  await context.close();
});
