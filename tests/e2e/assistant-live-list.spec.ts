import type { Page } from "@playwright/test";
import { expect, signIn, test } from "./fixtures";
import { conversationList, expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";

/**
 * The live conversation list (docs/decisions/086): a new chat is listed,
 * selected and marked "still writing…" as it is sent; the mark goes when its
 * run ends, in every open tab of the user, without a navigation; a generated
 * title streams into the row and the chat's header.
 */

test.beforeEach(async () => {
  await scriptedModel.reset();
});

/** A reply slow enough to watch: `words` words, one every `delayMs`. */
const slowReply = (words = 16, delayMs = 250) => ({
  type: "text" as const,
  text: Array.from({ length: words }, (_, index) => `word${index} `).join(""),
  chunkDelayMs: delayMs,
});

function row(page: Page, title: string | RegExp) {
  return conversationList(page)
    .getByRole("listitem")
    .filter({ has: page.getByRole("link", { name: title }) });
}

/** Opens the list's event stream's page: resolves once the stream has answered (the tab hears events from then on). */
async function gotoListening(page: Page, path: string) {
  const listening = page.waitForResponse((response) => response.url().endsWith("/api/conversations/events"));
  await page.goto(path);
  await listening;
}

/** The list as it looks while a reply is written, in the light and the dark theme (for review, in /tmp). */
async function screenshots(page: Page, size: string) {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: `/tmp/live-list-writing-${size}-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

test.describe("at 1280×800", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("a new chat is listed at once, selected and writing; the mark goes when its reply ends", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await gotoListening(page, "/nuvara");
    await scriptedModel.enqueue(slowReply());
    await sendMessage(page, "How do tides work on a lake");
    const listed = row(page, /How do tides work on a lake/);
    await expect(listed).toContainText("still writing…");
    await expect(listed.getByRole("link")).toHaveAttribute("aria-current", "page");
    await screenshots(page, "desktop");
    await expect(replies(page).getByRole("button", { name: "Regenerate" })).toBeVisible({ timeout: 30_000 });
    await expect(listed).not.toContainText("still writing…");
    await expect(listed.getByRole("link")).toHaveAttribute("aria-current", "page");
  });

  test("another tab of the same user lists the chat and clears its mark when the run ends, without navigating", async ({
    page,
    context,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    const other = await context.newPage();
    await gotoListening(other, "/nuvara");
    await other.evaluate(() => ((window as Window & { sameDocument?: boolean }).sameDocument = true));
    const otherUrl = other.url();

    await page.goto("/nuvara");
    await scriptedModel.enqueue(slowReply());
    await sendMessage(page, "Seen from the other tab");
    const there = row(other, /Seen from the other tab/);
    await expect(there).toContainText("still writing…");
    await expect(replies(page).getByRole("button", { name: "Regenerate" })).toBeVisible({ timeout: 30_000 });
    await expect(there).not.toContainText("still writing…");
    // The same document all along: no reload, no navigation.
    expect(other.url()).toBe(otherUrl);
    expect(await other.evaluate(() => (window as Window & { sameDocument?: boolean }).sameDocument)).toBe(true);
    // Stored now: that tab offers its actions (rename, pin, delete…).
    await expect(there.getByRole("button", { name: /^Actions for/ })).toBeVisible();
  });

  test("a generated title streams into the row and the chat's header", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await gotoListening(page, "/nuvara");
    // Every title the list shows, as it changes.
    await page.evaluate(() => {
      const seen = new Set<string>();
      (window as Window & { seenTitles?: Set<string> }).seenTitles = seen;
      const list = document.getElementById("conversation-list")!;
      new MutationObserver(() => {
        for (const link of list.querySelectorAll(".conversation-item a")) seen.add(link.firstChild?.textContent ?? "");
      }).observe(list, { subtree: true, childList: true, characterData: true });
    });
    await scriptedModel.enqueueTitle("why the sea is salty", {
      type: "text",
      text: ["Salty ", "Seas ", "Explained"],
      chunkDelayMs: 300,
    });
    await sendMessage(page, "Tell me why the sea is salty");
    const listed = conversationList(page).getByRole("link", { name: "Salty Seas Explained" });
    await expect(listed).toBeVisible({ timeout: 20_000 });
    // The chat's own header says it too, without a reload.
    await expect(page.getByRole("heading", { level: 2, name: "Salty Seas Explained" })).toBeVisible();
    const seen = await page.evaluate(() => [...(window as Window & { seenTitles?: Set<string> }).seenTitles!]);
    expect(seen).toContain("Tell me why the sea is salty"); // the first-line title, at once
    expect(seen.some((title) => title === "Salty" || title === "Salty Seas")).toBe(true); // then piece by piece
    const { titleRequests } = await scriptedModel.state();
    expect(JSON.stringify(titleRequests.at(-1)?.body?.messages)).toContain("why the sea is salty");
    await page.reload();
    await expect(conversationList(page).getByRole("link", { name: "Salty Seas Explained" })).toBeVisible();

    // A rename in the list heads the chat at once as well.
    await conversationList(page).getByRole("button", { name: "Actions for “Salty Seas Explained”" }).click();
    await page.getByRole("menuitem", { name: "Rename" }).click();
    const name = conversationList(page).getByRole("textbox", { name: "New title" });
    await name.fill("Why oceans hold salt");
    await name.press("Enter");
    await expect(page.getByRole("heading", { level: 2, name: "Why oceans hold salt" })).toBeVisible();
  });
});

test.describe("at 390×844", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the drawer lists the new chat, selected and writing, and the mark goes when the reply ends", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await gotoListening(page, "/nuvara");
    await scriptedModel.enqueue(slowReply(24));
    await sendMessage(page, "Phone question about tides");
    await expectConversationUrl(page);
    await page.getByRole("button", { name: "Conversations", exact: true }).click();
    const listed = row(page, /Phone question about tides/);
    await expect(listed).toContainText("still writing…");
    await expect(listed.getByRole("link")).toHaveAttribute("aria-current", "page");
    await screenshots(page, "phone");
    await expect(listed).not.toContainText("still writing…", { timeout: 30_000 });
  });

  test("on a phone the chat's header shows the generated title, and so does the drawer", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await gotoListening(page, "/nuvara");
    await scriptedModel.enqueueTitle("moon keeps one face", { type: "text", text: "Tidal Locking Explained" });
    await sendMessage(page, "Why the moon keeps one face to us");
    // The header is all of the list a phone shows while the drawer is closed.
    await expect(page.getByRole("heading", { level: 2, name: "Tidal Locking Explained" })).toBeVisible({
      timeout: 20_000,
    });
    await page.getByRole("button", { name: "Conversations", exact: true }).click();
    await expect(conversationList(page).getByRole("link", { name: "Tidal Locking Explained" })).toBeVisible();
  });
});
