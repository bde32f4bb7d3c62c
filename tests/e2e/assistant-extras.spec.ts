import { expectNoAxeViolations } from "./a11y";
import {
  composer,
  expectConversationUrl,
  replies,
  scriptedModel,
  sendMessage,
  userMessages,
} from "./assistant-support";
import { env, expect, signIn, test } from "./fixtures";

/** The rest people expect: 👍/👎, the theme switch, starter suggestions, the finished-reply announcement, model names. */

test.beforeEach(async () => {
  await scriptedModel.reset();
});

test.describe("👍/👎 on replies", () => {
  test("a thumb toggles, stays after a reload, takes itself back, and an admin sees it", async ({
    page,
    browser,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const marker = `rate-me-${Date.now()}`;
    await sendMessage(page, marker);
    await expect(replies(page)).toHaveText([new RegExp(`You said: ${marker}`)]);
    await expectConversationUrl(page);

    const up = replies(page).getByRole("button", { name: "Good reply" });
    const down = replies(page).getByRole("button", { name: "Bad reply" });
    await expect(up).toHaveAttribute("aria-pressed", "false");
    await down.click();
    await expect(down).toHaveAttribute("aria-pressed", "true");
    await expect(up).toHaveAttribute("aria-pressed", "false");
    await expectNoAxeViolations(page, "a rated reply");

    await page.reload();
    await expect(replies(page).getByRole("button", { name: "Bad reply" })).toHaveAttribute("aria-pressed", "true");

    // The admins see it beside the reports.
    const adminContext = await browser.newContext();
    const adminPage = await adminContext.newPage();
    await signIn(adminPage, await newAccount({ role: "admin" }));
    await adminPage.goto("/admin/messages");
    await adminPage.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Feedback" }).click();
    await expect(adminPage).toHaveURL(/\/admin\/feedback$/);
    await expect(adminPage.getByRole("heading", { level: 1, name: "Reply feedback" })).toBeVisible();
    const row = adminPage.getByRole("row").filter({ hasText: marker });
    await expect(row.getByRole("cell").first()).toHaveText("Bad");
    await expectNoAxeViolations(adminPage, "the admin feedback page");

    // Pressing the pressed thumb again takes the rating back.
    await replies(page).getByRole("button", { name: "Bad reply" }).click();
    await expect(replies(page).getByRole("button", { name: "Bad reply" })).toHaveAttribute("aria-pressed", "false");
    await page.reload();
    await expect(replies(page).getByRole("button", { name: "Bad reply" })).toHaveAttribute("aria-pressed", "false");
    await adminPage.reload();
    await expect(adminPage.getByRole("row").filter({ hasText: marker })).toHaveCount(0);
    await adminContext.close();
  });

  test("a signed-in user cannot see the feedback page", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    const response = await page.goto("/admin/feedback");
    expect(response?.status()).toBe(403);
  });
});

for (const size of [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const) {
  test.describe(`the settings menu (${size.name})`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test("the sidebar's Settings menu holds the theme, custom instructions and shortcuts, by keyboard, and gives the focus back", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await page.goto("/nuvara");
      // Live (the menu needs the page's scripts).
      await expect(page.getByRole("button", { name: "Attach files" })).toBeEnabled({ timeout: 20_000 });
      if (size.name === "phone") {
        const toggle = page.getByRole("button", { name: "Conversations", exact: true });
        await expect(toggle).toHaveAttribute("title", "Conversations");
        await toggle.click();
      }
      const button = page.getByRole("navigation", { name: "Conversations" }).getByRole("button", { name: "Settings" });
      await expect(button).toHaveAttribute("aria-haspopup", "menu");
      await button.focus();
      await page.keyboard.press("Enter");
      const menu = page.getByRole("menu", { name: "Settings" });
      await expect(menu).toBeVisible();
      await expect(button).toHaveAttribute("aria-expanded", "true");
      await expect(menu.getByRole("menuitemradio", { name: "System" })).toBeFocused();
      await expect(menu.getByRole("menuitemradio", { name: "System" })).toHaveAttribute("aria-checked", "true");
      await expect(menu.getByRole("menuitem", { name: "Custom instructions: off" })).toBeVisible();
      await expect(menu.getByRole("menuitem", { name: "Keyboard shortcuts" })).toBeVisible();
      // All of it on the screen.
      const box = (await menu.boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      await page.screenshot({ path: `/tmp/settings-${size.name}-light.png` });
      await expectNoAxeViolations(page, `settings menu open (${size.name})`);

      // Escape closes it, and the focus is back on its button.
      await page.keyboard.press("Escape");
      await expect(menu).toHaveCount(0);
      await expect(button).toBeFocused();
      await expect(button).toHaveAttribute("aria-expanded", "false");

      // Arrow keys to Dark, Enter: the page turns dark, and stays so.
      await page.keyboard.press("ArrowDown");
      await expect(menu.getByRole("menuitemradio", { name: "System" })).toBeFocused();
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
      await expect(menu.getByRole("menuitemradio", { name: "Dark" })).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
      await expect(button).toBeFocused();
      await button.click();
      await expect(menu.getByRole("menuitemradio", { name: "Dark" })).toHaveAttribute("aria-checked", "true");
      await page.screenshot({ path: `/tmp/settings-${size.name}-dark.png` });
      await expectNoAxeViolations(page, `settings menu open, dark (${size.name})`);

      // Custom instructions: its dialog, and back to the button when it closes.
      await menu.getByRole("menuitem", { name: "Custom instructions: off" }).click();
      const dialog = page.getByRole("dialog", { name: "Custom instructions" });
      await expect(dialog).toBeVisible();
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await expect(dialog).toBeHidden();
      await expect(button).toBeFocused();

      await page.reload();
      await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    });

    test("the dashboard has the same Settings menu, and its theme switch still works", async ({ page, newAccount }) => {
      await signIn(page, await newAccount());
      await page.goto("/dashboard");
      const button = page.getByRole("main").getByRole("button", { name: "Settings" });
      await expect(page.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
      // Live: Change password needs the page's scripts (the theme switch's Save button is only for a page without them).
      await expect(page.getByRole("button", { name: "Change password" })).toBeEnabled();
      await expect(page.getByRole("button", { name: "Save theme" })).toHaveCount(0);
      await button.click();
      const menu = page.getByRole("menu", { name: "Settings" });
      await menu.getByRole("menuitemradio", { name: "Dark" }).click();
      await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
      await expect(page.getByRole("group", { name: "Theme" }).getByRole("radio", { name: "Dark" })).toBeChecked();
      await button.click();
      const box = (await menu.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      await page.keyboard.press("Escape");
      await expect(button).toBeFocused();
      await page.getByRole("group", { name: "Theme" }).getByRole("radio", { name: "Light" }).check();
      await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    });
  });
}

test.describe("theme", () => {
  test("Dark is remembered for the account, on every page, in the server's HTML (no flash)", async ({
    page,
    browser,
    newAccount,
  }) => {
    const account = await newAccount();
    await signIn(page, account);
    await page.goto("/dashboard");
    const theme = page.getByRole("group", { name: "Theme" });
    await expect(theme.getByRole("radio", { name: "System" })).toBeChecked();
    await expect(page.locator("html")).not.toHaveAttribute("data-theme");

    await theme.getByRole("radio", { name: "Dark" }).check();
    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    // The page really is dark, whatever the system says (this browser is light).
    await expect(page.locator("body")).toHaveCSS("background-color", "rgb(17, 19, 24)");
    await expectNoAxeViolations(page, "dashboard, dark theme");

    // The first byte of every page already has it.
    for (const path of ["/dashboard", "/nuvara", "/"]) {
      const html = await (await page.request.get(path)).text();
      expect(html, path).toMatch(/<html lang="en" data-theme="dark"/);
    }
    await page.reload();
    await expect(page.getByRole("group", { name: "Theme" }).getByRole("radio", { name: "Dark" })).toBeChecked();
    await page.goto("/nuvara");
    await expect(page.locator("body")).toHaveCSS("background-color", "rgb(17, 19, 24)");

    // Light wins over a dark system, too.
    const darkSystem = await browser.newContext({ colorScheme: "dark", baseURL: env.baseURL });
    const other = await darkSystem.newPage();
    await signIn(other, account);
    await other.goto("/dashboard");
    await expect(other.locator("body")).toHaveCSS("background-color", "rgb(17, 19, 24)");
    await other.getByRole("group", { name: "Theme" }).getByRole("radio", { name: "Light" }).check();
    await expect(other.locator("html")).toHaveAttribute("data-theme", "light");
    await expect(other.locator("body")).toHaveCSS("background-color", "rgb(255, 255, 255)");
    // System again: no attribute, the system's colours.
    await other.getByRole("group", { name: "Theme" }).getByRole("radio", { name: "System" }).check();
    await expect(other.locator("html")).not.toHaveAttribute("data-theme");
    await expect(other.locator("body")).toHaveCSS("background-color", "rgb(17, 19, 24)");
    await darkSystem.close();
  });

  test("a signed-out visitor gets the system's theme", async ({ page }) => {
    const html = await (await page.request.get("/")).text();
    expect(html).toMatch(/<html lang="en">/);
  });
});

test.describe("an empty chat", () => {
  test("offers starter suggestions; one sends its prompt", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const suggestions = page.getByRole("list", { name: "Suggestions" }).getByRole("button");
    await expect(suggestions).toHaveCount(4);
    await expectNoAxeViolations(page, "an empty chat with suggestions");
    await suggestions.filter({ hasText: "Draft an email" }).click();
    await expect(userMessages(page)).toHaveText([/Draft a short, friendly email/]);
    await expect(replies(page)).toHaveText([/You said: Draft a short, friendly email/]);
    await expect(page.getByRole("list", { name: "Suggestions" })).toHaveCount(0);
    await expect(composer(page).box).toHaveValue("");
  });
});

test.describe("the finished reply is announced", () => {
  test("the polite status is empty while the reply streams and says it is finished afterwards", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const announcement = page.getByTestId("reply-announcement");
    await expect(announcement).toHaveAttribute("aria-live", "polite");
    // The transcript itself is not read out token by token.
    await expect(page.getByRole("log", { name: "Conversation" })).toHaveAttribute("aria-live", "off");
    await scriptedModel.enqueue({
      type: "text",
      text: ["The sky is blue. ", "It scatters ", "short waves."],
      chunkDelayMs: 400,
    });
    await sendMessage(page, "Why is the sky blue?");
    await expect(replies(page).getByText("The sky is blue.")).toBeVisible();
    await expect(announcement).toHaveText("");
    await expect(announcement).toHaveText("Reply finished: The sky is blue.");
    // The next reply clears it while streaming and announces itself.
    await scriptedModel.enqueue({
      type: "text",
      text: ["Because of Rayleigh scattering! ", "More later."],
      chunkDelayMs: 400,
    });
    await sendMessage(page, "Say more");
    await expect(announcement).toHaveText("");
    await expect(announcement).toHaveText("Reply finished: Because of Rayleigh scattering!");
  });
});

test.describe("model menu", () => {
  test("shows readable names; the id is what is chosen", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const picker = page.getByRole("combobox", { name: "Model" });
    await expect(picker.getByRole("option")).toHaveText(["test-model", "Test Model B"]);
    await picker.selectOption({ label: "Test Model B" });
    await expect(picker).toHaveValue("test-model-b");
  });
});
