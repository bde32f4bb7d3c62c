import type { Browser, Page } from "@playwright/test";
import { expectNoAxeViolations, expectNonTextContrast, expectVisibleFocus } from "./a11y";
import { composer, expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";
import { env, expect, signIn, test } from "./fixtures";

/**
 * WCAG 2.2 AA, measured (issue 11): every page and state — signed out, a
 * user, an admin, the chat mid-stream and after an error, every dialog, the
 * phone's drawer — at 1280×800 and 390×844, in the light and the dark theme:
 * axe-core finds nothing, text fields, selects and icons stand out from what
 * is behind them by at least 3:1, and the first Tab stops show where focus is.
 */

const SIZES = [
  { name: "1280×800", viewport: { width: 1280, height: 800 }, phone: false },
  { name: "390×844", viewport: { width: 390, height: 844 }, phone: true },
] as const;
const SCHEMES = ["light", "dark"] as const;
const headers = { Origin: env.baseURL };

test.beforeEach(async () => {
  await scriptedModel.reset();
});

async function pageAs(browser: Browser, viewport: { width: number; height: number }, colorScheme: "light" | "dark") {
  const context = await browser.newContext({ baseURL: env.baseURL, viewport, colorScheme });
  return { page: await context.newPage(), close: () => context.close() };
}

/** Every check on the page as it is now. */
async function expectAccessible(page: Page, state: string, { focus = true } = {}) {
  await expectNoAxeViolations(page, state);
  await expectNonTextContrast(page, state);
  if (focus) await expectVisibleFocus(page, state, 12);
}

async function visit(page: Page, path: string, state: string) {
  const response = await page.goto(path);
  expect(response?.status(), `${state}: ${path}`).toBeLessThan(500);
  await page.waitForLoadState("networkidle");
  await expectAccessible(page, `${state} ${path}`);
}

for (const size of SIZES) {
  test.describe(`accessibility at ${size.name}`, () => {
    test("signed out, and a user's pages, dialogs and chat states, in both themes", async ({ browser, newAccount }) => {
      // Every page in both themes, with axe, contrast and focus checks: minutes on a busy 2-core machine.
      test.setTimeout(360_000);
      const account = await newAccount({ displayName: "Ada Reader" });

      // A conversation with a code block and a table, shared, for the pages that show one.
      const setup = await pageAs(browser, size.viewport, "light");
      await signIn(setup.page, account);
      await setup.page.goto("/nuvara");
      await scriptedModel.enqueue({
        type: "text",
        text: "Here is **code**:\n\n```js\nconsole.log('hi');\n```\n\n| Name | Value |\n|---|---|\n| a | 1 |\n\nDone.",
      });
      await sendMessage(setup.page, "Show me code and a table");
      await expect(replies(setup.page)).toHaveText([/Done\./]);
      await expectConversationUrl(setup.page);
      const conversationPath = new URL(setup.page.url()).pathname;
      const conversationId = conversationPath.split("/").at(-1)!;
      const share = await setup.page.request.post(`/api/conversations/${conversationId}/share`, {
        form: { intent: "create", displayName: "Ada" },
        headers: { ...headers, Accept: "application/json" },
      });
      expect(share.ok()).toBe(true);
      const sharePath = ((await share.json()) as { share: { path: string } }).share.path;
      await setup.close();

      for (const scheme of SCHEMES) {
        const state = `${scheme}, ${size.name}`;

        const visitor = await pageAs(browser, size.viewport, scheme);
        for (const path of ["/", "/login", "/tools", "/tools/summarize", "/pricing", sharePath, "/no-such-page"]) {
          await visit(visitor.page, path, `signed out, ${state}`);
        }
        await visitor.close();

        const user = await pageAs(browser, size.viewport, scheme);
        await signIn(user.page, account);
        for (const path of ["/", "/dashboard", "/tools", "/tools/summarize", "/pricing", "/nuvara", conversationPath]) {
          await visit(user.page, path, `user, ${state}`);
        }
        const { page } = user;

        // Dialogs on the conversation (opened where a person opens them: the drawer on a phone).
        const openSidebarItem = async (name: string) => {
          if (size.phone) {
            await page.getByRole("button", { name: "Conversations", exact: true }).click();
            await expect(page.getByRole("navigation", { name: "Conversations" })).toBeVisible();
            await expectAccessible(page, `user, conversation drawer open, ${state}`, { focus: false });
          }
          await page.getByRole("button", { name, exact: false }).first().click();
        };
        await openSidebarItem("Keyboard shortcuts");
        await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
        await expectAccessible(page, `user, shortcuts dialog, ${state}`, { focus: false });
        await page.keyboard.press("Escape");

        await page.goto(conversationPath);
        await openSidebarItem("Custom instructions");
        await expect(page.getByRole("dialog", { name: "Custom instructions" })).toBeVisible();
        await expectAccessible(page, `user, custom instructions dialog, ${state}`, { focus: false });
        await page.keyboard.press("Escape");

        await page.goto(conversationPath);
        await replies(page).last().getByRole("button", { name: "Report" }).click();
        await expect(page.getByRole("dialog")).toBeVisible();
        await expectAccessible(page, `user, report dialog, ${state}`, { focus: false });
        await page.keyboard.press("Escape");

        await page.getByRole("button", { name: "Share", exact: true }).click();
        await expect(page.getByRole("dialog", { name: "Share this conversation" }).getByRole("textbox", { name: "Link" })).toBeVisible();
        await expectAccessible(page, `user, share dialog, ${state}`, { focus: false });
        await page.keyboard.press("Escape");

        // The chat mid-stream (Stop showing), then a failed reply with Retry.
        await page.goto("/nuvara");
        await scriptedModel.enqueue({ type: "text", text: "one two three four five six seven eight nine ten eleven twelve", chunkDelayMs: 300 });
        await sendMessage(page, "Count slowly");
        await expect(composer(page).stop).toBeVisible();
        await expect(replies(page).last()).toContainText("one");
        await expectAccessible(page, `user, reply streaming, ${state}`, { focus: false });
        await page.keyboard.press("Escape");
        await expect(composer(page).send).toBeVisible();

        await scriptedModel.failWith({ type: "http-error", status: 500 });
        await sendMessage(page, "This one fails");
        await expect(page.getByRole("button", { name: "Retry" })).toBeVisible();
        await expectAccessible(page, `user, failed reply with Retry, ${state}`, { focus: false });
        await scriptedModel.failWith(null);
        await user.close();
      }
    });

    test("an admin's pages, in both themes", async ({ browser, newAccount }) => {
      test.setTimeout(240_000);
      const admin = await newAccount({ role: "admin" });
      const setup = await pageAs(browser, size.viewport, "light");
      await signIn(setup.page, admin);
      expect(
        (await setup.page.request.post("/api/contact", { form: { email: "visitor@example.com", message: "A question about plans" }, headers })).status(),
      ).toBe(201);
      await setup.page.goto("/admin/messages");
      const firstMessage = await setup.page.locator('a[href^="/admin/messages/"]').first().getAttribute("href");
      expect(firstMessage).toBeTruthy();
      await setup.close();

      for (const scheme of SCHEMES) {
        const { page, close } = await pageAs(browser, size.viewport, scheme);
        await signIn(page, admin);
        for (const path of ["/admin/messages", firstMessage!, "/admin/users", "/admin/feedback", "/admin/usage", "/tools/new", "/tools/summarize/edit"]) {
          await visit(page, path, `admin, ${scheme}, ${size.name}`);
        }
        await close();
      }
    });
  });
}
