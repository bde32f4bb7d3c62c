import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";
import { expectConversationUrl, modelRequestFor, replies, scriptedModel, sendMessage } from "./assistant-support";

/**
 * The composer's tools menu: a tool unchecked there is not offered to the
 * model in that chat, the choice is still there after a reload, and the menu
 * works from the keyboard. The e2e app has the built-in functions, web search
 * and page reading among them (playwright.config.ts).
 */

test.beforeEach(async () => {
  await scriptedModel.reset();
});

function toolsButton(page: Page) {
  return page.getByRole("button", { name: /^Tools \d+ of \d+ on$/ });
}

function toolsMenu(page: Page) {
  return page.getByRole("dialog", { name: "Tools for this chat" });
}

/** The function names the model was offered with the message carrying `text`. */
async function offeredWith(text: string) {
  const request = await modelRequestFor(text);
  return (request.tools ?? []).map((tool) => tool.function.name);
}

for (const { name, viewport } of [
  { name: "1280x800", viewport: { width: 1280, height: 800 } },
  { name: "390x844", viewport: { width: 390, height: 844 } },
]) {
  test(`a tool unchecked in the menu is not offered in that chat, and stays unchecked after a reload (${name})`, async ({
    page,
    newAccount,
  }) => {
    await page.setViewportSize(viewport);
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await expect(toolsButton(page)).toHaveAccessibleName("Tools 5 of 5 on");
    await toolsButton(page).click();
    const menu = toolsMenu(page);
    await expect(menu.getByRole("group", { name: "Built-in" })).toBeVisible();
    await expect(menu.getByRole("checkbox")).toHaveCount(5);
    const calculator = menu.getByRole("checkbox", { name: "Calculator" });
    await expect(calculator).toBeChecked();
    await calculator.uncheck();
    await expect(toolsButton(page)).toHaveAccessibleName("Tools 4 of 5 on");
    await expect(menu.getByRole("link", { name: "Manage tools" })).toHaveAttribute("href", "/tools/servers");
    // The menu fits the screen, whatever its width.
    const box = (await menu.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
    expect(box.y).toBeGreaterThanOrEqual(0);
    await reviewShots(page, `tool-menu-${name}`);
    await expectNoAxeViolations(page, `the tools menu open (${name})`);

    await scriptedModel.enqueue({ type: "text", text: "Worked it out." });
    await sendMessage(page, "What is 6 times 7?");
    await expect(replies(page).getByText("Worked it out.")).toBeVisible();
    const offered = await offeredWith("What is 6 times 7?");
    expect(offered).toContain("convert_units");
    expect(offered).not.toContain("calculator");
    await expectConversationUrl(page);

    await page.reload();
    await expect(toolsButton(page)).toHaveAccessibleName("Tools 4 of 5 on");
    await toolsButton(page).click();
    await expect(toolsMenu(page).getByRole("checkbox", { name: "Calculator" })).not.toBeChecked();

    // Checked again from the menu of the stored chat: offered in its next message, and after a reload.
    const kept = page.waitForResponse(
      (response) => response.request().method() === "POST" && /\/nuvara\/[0-9a-f-]{36}\?/.test(response.url()),
    );
    await toolsMenu(page).getByRole("checkbox", { name: "Calculator" }).check();
    expect((await kept).status()).toBe(200);
    await page.keyboard.press("Escape");
    await scriptedModel.enqueue({ type: "text", text: "Counted again." });
    await sendMessage(page, "And 7 times 8?");
    await expect(replies(page).getByText("Counted again.")).toBeVisible();
    expect(await offeredWith("And 7 times 8?")).toContain("calculator");

    // Another chat has every tool.
    await page.goto("/nuvara");
    await expect(toolsButton(page)).toHaveAccessibleName("Tools 5 of 5 on");
  });
}

test("the menu from the keyboard: opened with Enter or Space, arrows move, Space unchecks, Escape closes back on the button", async ({
  page,
  newAccount,
}) => {
  await signIn(page, await newAccount());
  await page.goto("/nuvara");
  const button = toolsButton(page);
  await expect(button).toBeEnabled({ timeout: 20_000 });
  await button.focus();
  await page.keyboard.press("Enter");
  const menu = toolsMenu(page);
  await expect(menu).toBeVisible();
  await expect(button).toHaveAttribute("aria-expanded", "true");
  await expect(menu.getByRole("checkbox", { name: "Calculator" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(menu.getByRole("checkbox", { name: "Current date and time" })).toBeFocused();
  await page.keyboard.press("Space");
  await expect(menu.getByRole("checkbox", { name: "Current date and time" })).not.toBeChecked();
  await page.keyboard.press("End");
  await expect(menu.getByRole("link", { name: "Manage tools" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(menu.getByRole("checkbox", { name: "Calculator" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(menu.getByRole("checkbox", { name: "Current date and time" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute("aria-expanded", "false");

  await page.keyboard.press("Space");
  await expect(menu).toBeVisible();
  await expect(menu.getByRole("checkbox", { name: "Current date and time" })).not.toBeChecked();
  // Leaving it with Tab from its last entry closes it.
  await page.keyboard.press("End");
  await page.keyboard.press("Tab");
  await expect(menu).toBeHidden();

  await scriptedModel.enqueue({ type: "text", text: "No clock here." });
  await sendMessage(page, "What time is it?");
  await expect(replies(page).getByText("No clock here.")).toBeVisible();
  expect(await offeredWith("What time is it?")).not.toContain("current_datetime");
});
