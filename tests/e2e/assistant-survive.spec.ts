import { composer, conversationList, replies, scriptedModel, sendMessage, userMessages } from "./assistant-support";
import { expect, signIn, test } from "./fixtures";

/**
 * Replies that survive (docs/decisions/070) in Chromium: a reload
 * mid-reply shows what was written so far and goes on; another tab of the
 * same account follows it and its Stop stops it; the list says "still writing…".
 */

test.beforeEach(async () => {
  await scriptedModel.reset();
});

const WORDS = Array.from({ length: 40 }, (_, index) => `word${index + 1}`).join(" ");

test("a reload mid-reply: the page comes back at the conversation, with the reply so far, and it goes on to its end", async ({
  page,
  newAccount,
}) => {
  await signIn(page, await newAccount());
  await page.goto("/nuvara");
  await scriptedModel.enqueue({ type: "text", text: WORDS, chunkDelayMs: 80 });
  await sendMessage(page, "Count for me");
  await expect(replies(page).first()).toContainText("word3");
  // A new chat takes its address as soon as its reply is being written.
  await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);

  await page.reload();
  await expect(userMessages(page)).toHaveText([/Count for me/]);
  await expect(conversationList(page).getByText("still writing…")).toBeVisible();
  await expect(replies(page).first()).toContainText("word40", { timeout: 10_000 });
  await expect(composer(page).send).toBeVisible();
  const state = await scriptedModel.state();
  expect(state.abortedCount, "the reload did not stop the model").toBe(0);

  await page.reload();
  await expect(replies(page)).toHaveCount(1);
  await expect(replies(page).first()).toContainText("word1 word2");
  await expect(replies(page).first()).toContainText("word40");
  await expect(conversationList(page).getByText("still writing…")).toHaveCount(0);
});

test("another tab follows the reply, and its Stop stops it in both", async ({ page, context, newAccount }) => {
  // Two tabs and a Stop that travels through PostgreSQL: generous on a busy machine late in the run.
  test.slow();
  await signIn(page, await newAccount());
  await page.goto("/nuvara");
  await scriptedModel.enqueue({ type: "text", text: WORDS, chunkDelayMs: 100 });
  await sendMessage(page, "Count slowly");
  await expect(replies(page).first()).toContainText("word2");
  await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);

  const other = await context.newPage();
  await other.goto(page.url());
  await expect(replies(other).first()).toContainText("word4");
  await composer(other).stop.click();

  for (const tab of [other, page])
    await expect(replies(tab).first().getByText("Stopped")).toBeVisible({ timeout: 20_000 });
  await expect.poll(async () => (await scriptedModel.state()).abortedCount).toBe(1);
  const text = (await replies(page).first().textContent()) ?? "";
  expect(text).not.toContain("word40");
});
