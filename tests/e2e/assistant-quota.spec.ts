import { expect, signIn, test } from "./fixtures";
import {
  composer,
  conversationList,
  expectConversationUrl,
  replies,
  scriptedModel,
  sendMessage,
  userMessages,
} from "./assistant-support";

// playwright.config.ts gives the role "tiny" a quota of 2 messages a day.
test.beforeEach(async () => {
  await scriptedModel.reset();
});

test.describe("daily quota", () => {
  test("the composer counts down; when none remain it says so with the reset time and sending stops", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount({ role: "tiny" }));
    await page.goto("/nuvara");
    await expect(page.getByText("2 messages left today · resets at 00:00 UTC")).toBeVisible();
    await sendMessage(page, "first");
    await expect(replies(page)).toHaveText([/You said: first/]);
    await expect(page.getByText("1 message left today")).toBeVisible();
    await sendMessage(page, "second");
    await expect(replies(page)).toHaveCount(2);

    const notice = page.getByText("You've used all 2 of your messages for today. Your quota resets at 00:00 UTC.");
    await expect(notice).toBeVisible();
    await composer(page).box.fill("third");
    await expect(composer(page).send).toBeDisabled();
    await expectConversationUrl(page);
    await page.reload();
    await expect(notice).toBeVisible();
    await expect(composer(page).send).toBeDisabled();
    await expect(page.getByText(/messages? left today/)).toHaveCount(0);
  });

  test("a send refused by the server (quota used in another tab) shows the reset time and keeps the text", async ({
    browser,
    page,
    newAccount,
  }) => {
    const account = await newAccount({ role: "tiny" });
    await signIn(page, account);
    // This page hears nothing of the other tab (its live list's stream is down), so its count stays stale
    // and only the server can refuse: with the stream, the list would read the spent quota first.
    await page.route("**/api/conversations/events", (route) => route.abort());
    await page.goto("/nuvara");
    await expect(page.getByText("2 messages left today")).toBeVisible();

    // Another tab uses up the quota meanwhile.
    const other = await browser.newPage();
    await signIn(other, account);
    for (const text of ["elsewhere one", "elsewhere two"]) {
      await other.goto("/nuvara");
      await sendMessage(other, text);
      await expect(replies(other)).toHaveCount(1);
    }
    await other.close();

    await sendMessage(page, "This one is over the limit");
    const alert = page.getByRole("alert");
    await expect(alert).toContainText("You've used all 2 of your messages for today. Your quota resets at 00:00 UTC.");
    await expect(alert.getByRole("button", { name: "Retry" })).toHaveCount(0);
    // One line says why sending stopped: the count read before the refusal is gone.
    await expect(page.getByText(/messages? left today/)).toHaveCount(0);
    await expect(userMessages(page)).toHaveText([/This one is over the limit/]);
    // A model request may have started alongside the quota check (docs/decisions/033): whatever
    // it got back was never shown, and nothing of it was stored.
    await expect(replies(page)).toHaveCount(0);
    await page.reload();
    await expect(replies(page)).toHaveCount(0);
    await expect(page.getByText("You've used all 2 of your messages for today.")).toBeVisible();
  });

  test("a failed reply does not use up the quota", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: "tiny" }));
    await page.goto("/nuvara");
    await scriptedModel.enqueue({ type: "http-error", status: 503 });
    await sendMessage(page, "will fail");
    await expect(page.getByRole("alert")).toContainText("had a problem answering");
    await page.getByRole("button", { name: "Retry" }).click();
    await expect(replies(page)).toHaveText([/You said: will fail/]);
    await expect(page.getByText("1 message left today")).toBeVisible();
  });

  test("Stop before the first word is free: the count is unchanged, also after a reload", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount({ role: "tiny" }));
    await page.goto("/nuvara");
    await expect(page.getByText("2 messages left today")).toBeVisible();
    // The model never answers: nothing of the reply is ever shown.
    await scriptedModel.enqueue({ type: "stall" });
    await sendMessage(page, "Never mind");
    const { stop, box } = composer(page);
    await expect(stop).toBeVisible();
    await stop.click();
    await expect(composer(page).send).toBeVisible();
    await expect(userMessages(page)).toHaveText([/Never mind/]);
    await expect(page.getByText("2 messages left today")).toBeVisible();
    await box.fill("");
    // The message itself is kept (stored as the stop ends the reply), in a conversation of its own.
    await expect(async () => {
      await page.reload();
      await expect(conversationList(page).getByRole("link", { name: "Never mind" })).toBeVisible({ timeout: 1_000 });
    }).toPass();
    await expect(page.getByText("2 messages left today")).toBeVisible();
  });

  test("admins have no daily limit", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: "admin" }));
    await page.goto("/nuvara");
    await sendMessage(page, "hello as admin");
    await expect(replies(page)).toHaveCount(1);
    await expect(page.getByText(/messages? left today/)).toHaveCount(0);
  });
});
