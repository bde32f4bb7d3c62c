import type { Locator, Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import {
  composer,
  conversationList,
  expectConversationUrl,
  modelRequestFor,
  replies,
  scriptedModel,
  sendMessage,
} from "./assistant-support";
import { expect, signIn, test } from "./fixtures";

const PHONE = { width: 390, height: 844 };

test.beforeEach(async () => {
  await scriptedModel.reset();
});

function transcript(page: Page) {
  return page.getByRole("log", { name: "Conversation" });
}

/** How far (px) the transcript's view is above its end, measured after the next frame is laid out. */
/**
 * Measured in a ResizeObserver made now: the browser calls it in the next
 * frame right after the app's own (observers are called in the order they
 * were made), so the app has answered the latest layout — on a slow machine
 * a new chunk may land between any other two points, and a following view
 * would look behind.
 */
function distanceFromBottom(log: Locator) {
  return log.evaluate(
    (element) =>
      new Promise<number>((resolve) => {
        const observer = new ResizeObserver(() => {
          observer.disconnect();
          resolve(element.scrollHeight - element.scrollTop - element.clientHeight);
        });
        observer.observe(element.firstElementChild ?? element);
      }),
  );
}

/** Following: at (or back at, within a frame or two of new text) the end of the transcript. */
async function expectAtLatest(log: Locator) {
  await expect.poll(() => distanceFromBottom(log), { timeout: 1_000 }).toBeLessThanOrEqual(2);
}

async function expectPageDoesNotScroll(page: Page) {
  const sizes = await page.evaluate(() => ({
    height: document.documentElement.scrollHeight,
    width: document.documentElement.scrollWidth,
    viewportHeight: window.innerHeight,
    viewportWidth: window.innerWidth,
  }));
  expect(sizes.height).toBe(sizes.viewportHeight);
  expect(sizes.width).toBeLessThanOrEqual(sizes.viewportWidth);
}

/** Waits until the streaming reply has `more` paragraphs than now. */
async function expectMoreParagraphs(page: Page, more: number) {
  const paragraphsNow = replies(page).last().locator("p");
  const count = await paragraphsNow.count();
  await expect.poll(() => paragraphsNow.count()).toBeGreaterThanOrEqual(count + more);
}

/** Paragraphs enough to fill several screens. */
function paragraphs(count: number, prefix = "Paragraph") {
  return Array.from(
    { length: count },
    (_, index) => `${prefix} ${index + 1} of the answer, long enough to wrap a little on a phone.\n\n`,
  );
}

test.describe("the chat's layout", () => {
  test("a long conversation opens at its latest message; the page stays put while the transcript scrolls", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/nuvara");
    await scriptedModel.enqueue({ type: "text", text: paragraphs(60) });
    await sendMessage(page, "Write a long answer");
    await expect(replies(page).getByText("Paragraph 60 of the answer")).toBeVisible();
    await expectConversationUrl(page);

    await page.reload();
    const log = transcript(page);
    await expect.poll(() => log.evaluate((element) => element.scrollHeight > element.clientHeight + 500)).toBe(true);
    await expect.poll(() => distanceFromBottom(log)).toBeLessThanOrEqual(2);
    await expect(replies(page).getByText("Paragraph 60 of the answer")).toBeInViewport();
    await expect(page.getByText("Paragraph 1 of the answer")).not.toBeInViewport();
    await expectPageDoesNotScroll(page);

    // Scrolling the transcript moves neither the header, New chat, search nor the list.
    await log.hover();
    await page.mouse.wheel(0, -3000);
    await expect(page.getByText("Paragraph 1 of the answer")).toBeInViewport();
    await expect(page.getByRole("link", { name: "New chat" })).toBeInViewport();
    await expect(page.getByRole("searchbox", { name: "Search conversations" })).toBeInViewport();
    await expect(conversationList(page).getByRole("link", { name: "Write a long answer" })).toBeInViewport();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeInViewport();
    await expect(composer(page).box).toBeInViewport();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
  });

  test.describe("on a slow device", () => {
    test.use({ cpuSlowdown: 6 });

    test("a reply arriving faster than the screen redraws is followed to its end, never showing Jump to latest", async ({
      page,
      newAccount,
    }) => {
      test.slow();
      await signIn(page, await newAccount());
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto("/nuvara");
      // Counts every time the button appears: it must not, as nobody scrolled.
      await page.evaluate(() => {
        const seen = { jumps: 0 };
        Object.assign(window, { followProbe: seen });
        new MutationObserver(() => {
          if (document.querySelector(".jump-to-latest")) seen.jumps += 1;
        }).observe(document.body, { childList: true, subtree: true });
      });
      await scriptedModel.enqueue({ type: "text", text: paragraphs(60), chunkDelayMs: 40 });
      await sendMessage(page, "Stream fast");
      const log = transcript(page);
      await expect(replies(page).getByText("Paragraph 60 of the answer")).toBeInViewport({ timeout: 30_000 });
      await expect(composer(page).send).toBeVisible({ timeout: 15_000 });
      await expect.poll(() => distanceFromBottom(log)).toBeLessThanOrEqual(2);
      expect(
        await page.evaluate(() => (window as unknown as { followProbe: { jumps: number } }).followProbe.jumps),
      ).toBe(0);
    });
  });

  test("a streaming reply is followed unless the user scrolls up; Jump to latest goes back and follows again", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/nuvara");
    // Long enough to be still streaming after the scrolling below on a busy machine (axe takes seconds).
    test.slow();
    await scriptedModel.enqueue({ type: "text", text: paragraphs(160), chunkDelayMs: 120 });
    await sendMessage(page, "Stream a long answer");
    const log = transcript(page);

    // Following: once the reply is taller than the view, its newest words stay in sight.
    await expect(replies(page).getByText("Paragraph 20 of the answer")).toBeVisible();
    // The new chat takes its address once its reply shows (late on a busy machine): scroll after that.
    await expectConversationUrl(page);
    await expectAtLatest(log);
    await expect(replies(page).getByText("Paragraph 25 of the answer")).toBeInViewport();
    await expectAtLatest(log);
    await expect(page.getByRole("button", { name: "Jump to latest" })).toHaveCount(0);
    await expect(composer(page).stop).toBeVisible();
    await expectNoAxeViolations(page, "mid-stream, 1280×800");

    // Scrolled up to read: the view stays where the user put it while the reply goes on.
    await log.hover();
    await page.mouse.wheel(0, -400);
    const jump = page.getByRole("button", { name: "Jump to latest" });
    await expect(jump).toBeVisible();
    const readingAt = await log.evaluate((element) => element.scrollTop);
    await expectMoreParagraphs(page, 3);
    expect(await log.evaluate((element) => element.scrollTop)).toBe(readingAt);
    expect(await distanceFromBottom(log)).toBeGreaterThan(300);

    await jump.click();
    await expect(jump).toHaveCount(0);
    await expectAtLatest(log);
    await expectMoreParagraphs(page, 3);
    await expect(composer(page).stop).toBeVisible();
    await expectAtLatest(log);
    // Stopped here (following a reply to its very end is the next test's): the view stays at its last words.
    await composer(page).stop.click();
    await expect(composer(page).send).toBeVisible();
    await expect.poll(() => distanceFromBottom(log)).toBeLessThanOrEqual(2);
  });

  test("wide screens: the sidebar collapses and stays collapsed after a reload", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/nuvara");
    const toggle = page.getByRole("button", { name: "Conversations", exact: true });
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await expect(page.getByRole("searchbox", { name: "Search conversations" })).toBeVisible();

    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await expect(conversationList(page)).toBeHidden();
    // New chat moves to the header while the list is hidden.
    await expect(page.getByRole("link", { name: "New chat" })).toBeVisible();

    await page.reload();
    await expect(conversationList(page)).toBeHidden();
    await expect(page.getByRole("button", { name: "Conversations", exact: true })).toHaveAttribute(
      "aria-expanded",
      "false",
    );
    await page.getByRole("button", { name: "Conversations", exact: true }).click();
    await expect(conversationList(page)).toBeVisible();
    await page.reload();
    await expect(page.getByRole("searchbox", { name: "Search conversations" })).toBeVisible();
  });
});

test.describe("the chat on a phone (390×844)", () => {
  test.use({ viewport: PHONE });

  test("the model picker fits the bar and works, in a chat with custom instructions, Export and Share", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const saved = await page.request.post("/nuvara", {
      form: { intent: "instructions", instructions: "Answer briefly." },
      headers: { Origin: new URL(page.url()).origin },
    });
    expect(saved.ok()).toBe(true);
    await sendMessage(page, "Pick a model");
    await expect(replies(page)).toHaveCount(1);
    await expectConversationUrl(page);
    await page.reload();

    const picker = page.getByRole("combobox", { name: "Model" });
    await expect(page.getByText("Custom instructions on")).toBeVisible();
    await expect(page.getByRole("button", { name: "Share" })).toBeVisible();
    await expect(picker).toBeEnabled();
    // All of it on the screen, wide enough to read a model's name, and the bar does not run off the edge.
    const box = (await picker.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    expect(box.width).toBeGreaterThanOrEqual(100);
    const bar = page.locator(".chat-header");
    expect(await bar.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    for (const control of [page.getByRole("link", { name: "Export" }), page.getByRole("button", { name: "Share" })]) {
      const at = (await control.boundingBox())!;
      expect(at.x + at.width).toBeLessThanOrEqual(PHONE.width);
    }
    await expectPageDoesNotScroll(page);
    await page.screenshot({ path: "/tmp/model-picker-phone.png" });

    await picker.selectOption({ label: "Test Model B" });
    await expect(picker).toHaveValue("test-model-b");
    await sendMessage(page, "Which model now");
    await expect(replies(page)).toHaveCount(2);
    expect((await modelRequestFor("Which model now")).model).toBe("test-model-b");
  });

  test("one slim bar above the chat; the list is a drawer that keeps focus and closes with Escape or Close", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await sendMessage(page, "Hello from a phone");
    await expect(replies(page)).toHaveText([/You said: Hello from a phone/]);
    await expectConversationUrl(page);

    // One slim bar (the chat's own: no site header above it), and the page itself does not scroll.
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    // Measured once the conversation's page has replaced the new chat's (the address changes first).
    const bar = page.locator(".chat-header");
    await expect(bar).toBeVisible();
    await expect.poll(async () => (await bar.boundingBox())?.y).toBe(0);
    expect((await bar.boundingBox())!.height).toBeLessThanOrEqual(52);
    await expect
      .poll(async () => (await page.getByRole("article", { name: "You" }).boundingBox())?.y ?? Infinity)
      .toBeLessThan(90);
    await expectPageDoesNotScroll(page);
    await expect(conversationList(page)).toBeHidden();

    const opener = page.getByRole("button", { name: "Conversations", exact: true });
    await expect(opener).toHaveAttribute("aria-expanded", "false");
    await opener.click();
    const drawer = conversationList(page);
    await expect(drawer).toBeVisible();
    await expect(opener).toHaveAttribute("aria-expanded", "true");
    const close = drawer.getByRole("button", { name: "Close conversations" });
    await expect(close).toBeFocused();
    await expectNoAxeViolations(page, "drawer open, 390×844");

    // Tab and Shift+Tab go round inside the drawer.
    for (let i = 0; i < 12; i += 1) {
      await page.keyboard.press("Tab");
      expect(await drawer.evaluate((nav) => nav.contains(document.activeElement))).toBe(true);
    }
    for (let i = 0; i < 12; i += 1) {
      await page.keyboard.press("Shift+Tab");
      expect(await drawer.evaluate((nav) => nav.contains(document.activeElement))).toBe(true);
    }

    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
    await expect(opener).toBeFocused();
    await expect(opener).toHaveAttribute("aria-expanded", "false");

    await opener.click();
    await expect(close).toBeFocused();
    await close.click();
    await expect(drawer).toBeHidden();
    await expect(opener).toBeFocused();

    // The site's links are in the drawer, with the header's names.
    await opener.click();
    const siteLinks = drawer.getByRole("navigation", { name: "Site" });
    await expect(siteLinks.getByRole("link")).toHaveText(["Assistant", "Dashboard", "Tools"]);
    await expect(siteLinks.getByRole("button", { name: "Logout" })).toBeVisible();
    await siteLinks.getByRole("link", { name: "Dashboard" }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await page.goBack();
    await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);

    // Choosing a conversation in the drawer opens it and closes the drawer.
    await opener.click();
    await drawer.getByRole("link", { name: "New chat" }).click();
    await expect(page).toHaveURL(/\/nuvara$/);
    await expect(drawer).toBeHidden();
  });

  test("wide tables and code scroll sideways inside their block; table headers keep their words whole", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const header = "| Specification | Manufacturer | Availability | Temperature | Description |";
    const rule = "|---|---|---|---|---|";
    const row = "| alpha | beta | gamma | delta | epsilon |";
    const code =
      "```js\nconst aVeryLongVariableName = someFunction(firstArgument, secondArgument, thirdArgument, fourthArgument);\n```";
    await scriptedModel.enqueue({ type: "text", text: [`${header}\n${rule}\n${row}\n\n`, `${code}\n`] });
    await sendMessage(page, "Show a wide table and code");
    // Measured on the conversation's own page: the new chat's page gives way to it once the reply shows.
    await expectConversationUrl(page);
    const reply = replies(page).first();
    await expect(reply.getByRole("columnheader", { name: "Description" })).toBeAttached();
    const pre = reply.locator(".code-block pre");
    await expect(pre).toContainText("fourthArgument");

    // (Polled: the reply's Markdown may still be loading its code highlighting.)
    const table = reply.locator(".md-table");
    await expect.poll(() => table.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    // The code scrolls in its own box (ScrollRegion), around the <pre>.
    const codeBox = reply.locator(".code-block .code-scroll");
    await expect
      .poll(async () => ({
        overflows: await codeBox.evaluate((element) => element.scrollWidth > element.clientWidth),
        whiteSpace: await pre.evaluate((element) => getComputedStyle(element).whiteSpace),
      }))
      .toEqual({ overflows: true, whiteSpace: "pre" });
    await expectPageDoesNotScroll(page);

    // Each header is on one line: its height is one line of text.
    // (Polled: measured once the page's styles apply — a line height of "normal" measures nothing.)
    await expect
      .poll(() =>
        reply.getByRole("columnheader").evaluateAll((cells) =>
          cells.map((element) => {
            const style = getComputedStyle(element);
            const content = element.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
            return Math.round(content / parseFloat(style.lineHeight));
          }),
        ),
      )
      .toEqual([1, 1, 1, 1, 1]);

    // Sideways scrolling moves the table, not the page.
    await table.evaluate((element) => element.scrollBy({ left: 200 }));
    expect(await table.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
    await codeBox.evaluate((element) => element.scrollBy({ left: 200 }));
    expect(await codeBox.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
    expect(await page.evaluate(() => window.scrollX)).toBe(0);
  });

  test("mid-stream on a phone: followed, and no accessibility violations", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.enqueue({ type: "text", text: paragraphs(40), chunkDelayMs: 100 });
    await sendMessage(page, "Stream on a phone");
    await expect(replies(page).getByText("Paragraph 12 of the answer")).toBeVisible();
    await expectAtLatest(transcript(page));
    await expect(composer(page).stop).toBeVisible();
    await expectNoAxeViolations(page, "mid-stream, 390×844");
    await expectPageDoesNotScroll(page);
  });
});
