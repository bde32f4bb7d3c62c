import { expect, signIn, test } from "./fixtures";
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

/**
 * A new chat becomes a conversation only once its first exchange is stored
 * (docs/decisions/033), and a message may be as long as the user's role
 * allows (MESSAGE_MAX_CHARS; playwright.config.ts gives "tiny" 50 characters,
 * everyone else the default 100,000).
 */

test.beforeEach(async () => {
  await scriptedModel.reset();
});

test("a failed first send leaves no empty chat: after a reload the list has no conversation", async ({
  page,
  newAccount,
}) => {
  await signIn(page, await newAccount());
  await page.goto("/nuvara");
  await scriptedModel.enqueue({ type: "http-error", status: 503 });
  await sendMessage(page, "This will fail");
  await expect(page.getByRole("alert")).toContainText("had a problem answering");
  await expect(userMessages(page)).toHaveText([/This will fail/]);
  await expect(page).toHaveURL(/\/nuvara$/);
  // The list, live, drops the chat at once; a reload, whenever it comes, ends on the same list.
  const list = conversationList(page);
  await expect(list.getByText("No conversations yet.")).toBeVisible();
  await page.reload();
  await expect(list.getByText("No conversations yet.")).toBeVisible();
  await expect(list.locator(".conversation-item")).toHaveCount(0);
  // The text comes back into the composer, to send again.
  await expect(composer(page).box).toHaveValue("This will fail");
});

test("pasting a 20,000-character message sends it, and it is stored whole", async ({ page, newAccount }) => {
  await signIn(page, await newAccount());
  await page.goto("/nuvara");
  const long = "Lorem ipsum dolor sit amet, ".repeat(800).slice(0, 19_996) + "end.";
  expect(long.length).toBe(20_000);
  await scriptedModel.enqueue({ type: "text", text: "Got your long text." });
  // Inserted at once, as a paste is (not typed key by key).
  await composer(page).box.focus();
  await page.keyboard.insertText(long);
  await expect(composer(page).box).toHaveValue(long);
  await expect(page.getByText(/characters long; the limit is/)).toHaveCount(0);
  await expect(composer(page).send).toBeEnabled();
  await composer(page).box.press("Enter");
  await expect(replies(page)).toHaveText([/Got your long text\./]);
  await expectConversationUrl(page);
  await page.reload();
  await expect(userMessages(page)).toHaveCount(1);
  const shown = (await userMessages(page).textContent()) ?? "";
  expect(shown.includes(long), "the whole message is shown after a reload").toBe(true);
});

test("the composer holds a message to the user's own cap, with the numbers", async ({ page, newAccount }) => {
  await signIn(page, await newAccount({ role: "tiny" }));
  await page.goto("/nuvara");
  const { box, send } = composer(page);
  await box.fill("x".repeat(51));
  await expect(page.getByText("Your message is 51 characters long; the limit is 50.")).toBeVisible();
  await expect(send).toBeDisabled();
  await expectNoAxeViolations(page, "composer over the cap");
  await box.fill("x".repeat(50));
  await expect(page.getByText(/characters long; the limit is/)).toHaveCount(0);
  await expect(send).toBeEnabled();
});
