import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import {
  composer,
  conversationList,
  expectConversationUrl,
  replies,
  scriptedModel,
  sendMessage,
  userMessages,
} from "./assistant-support";
import { expect, signIn, test } from "./fixtures";

test.beforeEach(async () => {
  await scriptedModel.reset();
});

const slowReply = {
  type: "text" as const,
  text: "one two three four five six seven eight nine ten eleven twelve thirteen fourteen",
  chunkDelayMs: 250,
};

/** Focus nowhere in particular, as after clicking the page's background. */
async function blur(page: Page) {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

test.describe("keyboard and focus in the assistant", () => {
  test("the message box has the focus on load, after sending, after Stop and after leaving Edit", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const { box, send, stop } = composer(page);
    await expect(box).toBeFocused();

    // Sending with the button (and the first send moving the chat to its URL) leaves the cursor in the box.
    await box.fill("First question");
    await send.click();
    await expect(replies(page)).toHaveText([/You said: First question/]);
    await expectConversationUrl(page);
    await expect(box).toBeFocused();
    await page.keyboard.type("typed straight on");
    await expect(box).toHaveValue("typed straight on");
    await box.fill("");

    await scriptedModel.enqueue(slowReply);
    await sendMessage(page, "Count slowly");
    await expect(replies(page).nth(1).getByText("one two")).toBeVisible();
    await stop.click();
    await expect(replies(page).nth(1).getByText("Stopped")).toBeVisible();
    await expect(box).toBeFocused();

    // Edit, then Escape: back in the box, the message unchanged.
    await userMessages(page).nth(1).getByRole("button", { name: "Edit" }).click();
    const editor = page.getByRole("textbox", { name: "Edit your message" });
    await expect(editor).toBeFocused();
    await editor.press("Escape");
    await expect(editor).toHaveCount(0);
    await expect(box).toBeFocused();
    await expect(userMessages(page).nth(1)).toContainText("Count slowly");

    // Edit, then Save and send: back in the box too.
    await userMessages(page).nth(1).getByRole("button", { name: "Edit" }).click();
    await editor.fill("Count quickly");
    await page.getByRole("button", { name: "Save and send" }).click();
    await expect(replies(page).nth(1)).toContainText("You said: Count quickly");
    await expect(box).toBeFocused();

    // Opening another conversation puts the cursor in its box too.
    await page.goto("/nuvara");
    await conversationList(page).getByRole("link", { name: "First question" }).click();
    await expect(userMessages(page).first()).toContainText("First question");
    await expect(box).toBeFocused();
  });

  test("typing on while a new chat takes its own address loses nothing, and Enter sends it", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const { box } = composer(page);
    await sendMessage(page, "First question");
    // The next question is typed at once, key by key, while the reply comes and the chat moves to /nuvara/<id>:
    // the conversation's page takes over the box mid-word (its render waits while keys keep coming).
    const next = "and a second question typed straight after the first one, without waiting";
    await page.keyboard.type(next, { delay: 25 });
    await expectConversationUrl(page);
    await expect(box).toHaveValue(next);
    await expect(box).toBeFocused();
    await page.keyboard.type(" at all");
    await expect(box).toHaveValue(`${next} at all`);
    await box.press("Enter");
    await expect(userMessages(page)).toHaveCount(2);
    await expect(userMessages(page).nth(1)).toContainText(`${next} at all`);
    await expect(box).toHaveValue("");
  });

  test("after Regenerate and after Retry the message box has the focus (their buttons go with the old reply)", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.enqueue({ type: "text", text: "First answer." });
    await sendMessage(page, "Answer twice");
    await expect(replies(page)).toHaveText([/First answer\./]);
    await expectConversationUrl(page);

    await scriptedModel.enqueue({ type: "text", text: "Second answer." });
    await replies(page).getByRole("button", { name: "Regenerate" }).click();
    await expect(replies(page)).toHaveText([/Second answer\./]);
    await expect(composer(page).box).toBeFocused();

    await scriptedModel.failWith({ type: "http-error", status: 500 });
    await sendMessage(page, "This one fails");
    const retry = page.getByRole("button", { name: "Retry" });
    await expect(retry).toBeVisible();
    await scriptedModel.failWith(null);
    await scriptedModel.enqueue({ type: "text", text: "Worked this time." });
    await retry.click();
    await expect(replies(page).last()).toHaveText(/Worked this time\./);
    await expect(composer(page).box).toBeFocused();
  });

  test("Escape stops a streaming reply, from the message box or the transcript", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const { box, send, stop } = composer(page);

    await scriptedModel.enqueue(slowReply);
    await sendMessage(page, "Count for me");
    await expect(replies(page).getByText("one two")).toBeVisible();
    await expect(box).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(replies(page).getByText("Stopped")).toBeVisible();
    await expect(send).toBeVisible();
    await expect.poll(async () => (await scriptedModel.state()).abortedCount).toBe(1);
    await expect(replies(page).first()).not.toContainText("fourteen");

    await scriptedModel.enqueue(slowReply);
    await sendMessage(page, "Again please");
    await expect(replies(page).nth(1).getByText("one two")).toBeVisible();
    await page.getByRole("log", { name: "Conversation" }).focus();
    await page.keyboard.press("Escape");
    await expect(replies(page).nth(1).getByText("Stopped")).toBeVisible();
    await expect(stop).toHaveCount(0);
    await expect(box).toBeFocused();
    await expect.poll(async () => (await scriptedModel.state()).abortedCount).toBe(2);
  });

  test("shortcuts: Ctrl+Shift+O starts a new chat, Shift+Esc goes to the message box, Ctrl+/ shows them all", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await sendMessage(page, "Shortcut test");
    await expect(replies(page)).toHaveText([/You said: Shortcut test/]);
    await expectConversationUrl(page);

    const search = page.getByRole("searchbox", { name: "Search conversations" });
    await search.focus();
    await page.keyboard.press("Shift+Escape");
    await expect(composer(page).box).toBeFocused();

    await page.keyboard.press("Control+Shift+O");
    await expect(page).toHaveURL(/\/nuvara$/);
    await expect(userMessages(page)).toHaveCount(0);
    await expect(page.getByRole("heading", { level: 2, name: "New chat" })).toBeVisible();
    await expect(composer(page).box).toBeFocused();

    await page.keyboard.press("Control+/");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await expect(help).toBeVisible();
    await expect(help.getByRole("row")).toHaveText([
      /New chat\s*Ctrl \+ Shift \+ O/,
      /Go to the message box\s*Shift \+ Esc/,
      /Send the message\s*Enter/,
      /New line in the message\s*Shift \+ Enter/,
      /Stop the reply\s*Esc/,
      /Show these shortcuts\s*Ctrl \+ \//,
    ]);
    await expectNoAxeViolations(page, "shortcuts dialog, 1280×720");
    await page.keyboard.press("Escape");
    await expect(help).toBeHidden();
    await expect(composer(page).box).toBeFocused();

    // The same help from the sidebar's Settings menu.
    await conversationList(page).getByRole("button", { name: "Settings" }).click();
    await conversationList(page).getByRole("menuitem", { name: "Keyboard shortcuts" }).click();
    await expect(help).toBeVisible();
    await help.getByRole("button", { name: "Close" }).click();
    await expect(help).toBeHidden();
  });

  test("the shortcuts help on a phone has no accessibility violations", async ({ page, newAccount }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const toggle = page.getByRole("button", { name: "Conversations", exact: true });
    // Once the page knows it is on a phone (its title says so) the button opens the drawer, not the desktop list.
    await expect(toggle).toHaveAttribute("title", "Conversations");
    await toggle.click();
    await conversationList(page).getByRole("button", { name: "Settings" }).click();
    await conversationList(page).getByRole("menuitem", { name: "Keyboard shortcuts" }).click();
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await expect(help).toBeVisible();
    await expect(help.getByRole("row").first()).toBeInViewport();
    await expectNoAxeViolations(page, "shortcuts dialog, 390×844");
  });

  test("the first Tab stop is a skip link to the message box", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await sendMessage(page, "Skip link test");
    await expectConversationUrl(page);

    for (const path of ["/nuvara", page.url()]) {
      await page.goto(path);
      await expect(composer(page).box).toBeFocused();
      const skip = page.getByRole("link", { name: "Skip to message box" });
      // Hidden until it has the focus.
      await expect(skip).not.toBeInViewport();
      // Nothing comes before it in the Tab order, and the site's nav comes right after it.
      const firstStop = await page.evaluate(() => {
        const stops = [
          ...document.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, [tabindex]"),
        ].filter((element) => element.tabIndex >= 0 && !(element as HTMLButtonElement).disabled);
        return stops[0]?.textContent;
      });
      expect(firstStop).toBe("Skip to message box");
      await page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link", { name: /Nuvara/ })
        .focus();
      await page.keyboard.press("Shift+Tab");
      await expect(skip).toBeFocused();
      await expect(skip).toBeInViewport();
      await page.keyboard.press("Enter");
      await expect(composer(page).box).toBeFocused();
      await blur(page);
    }

    // Elsewhere there is none.
    await page.goto("/dashboard");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to message box" })).toHaveCount(0);
  });

  test("the Tab order runs through the chat header and the transcript to the message box", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await sendMessage(page, "Tab order test");
    await expect(replies(page)).toHaveText([/You said: Tab order test/]);
    await expectConversationUrl(page);
    await page.reload();
    await expect(composer(page).box).toBeFocused();

    // From the Conversations button onward: header, transcript, its messages' buttons, then the box.
    await page.getByRole("button", { name: "Conversations", exact: true }).focus();
    const names: string[] = [];
    for (let i = 0; i < 16; i += 1) {
      await page.keyboard.press("Tab");
      const name = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        return element.getAttribute("aria-label") || element.textContent?.trim() || element.tagName;
      });
      names.push(name);
      if (name === "Message") break;
    }
    expect(names[0]).toMatch(/^test-model/);
    expect(names).toContain("Share");
    expect(names).toContain("Export");
    expect(names).toContain("Conversation");
    expect(names.at(-1)).toBe("Message");
    // The header's few controls, the transcript and one exchange's buttons (Copy, 👍, 👎, Report, Regenerate…): no more.
    expect(names.length, names.join(" → ")).toBeLessThanOrEqual(13);
  });
});
