import type { Page } from "@playwright/test";
import { expect, signIn, test } from "./fixtures";
import { expectConversationUrl, replies, scriptedModel, sendMessage, userMessages } from "./assistant-support";

/**
 * A send that fails — the model or a store — keeps the user's text in the
 * transcript with Retry; once the fault is gone, Retry gives exactly one
 * message and one reply, in the page and after a reload.
 * Store faults are injected in the integration tests (tests/integration/
 * chat-faults.test.ts), behind fault proxies this browser setup does not
 * have; here the browser gets the endpoint's answer to them, a 503.
 */

test.beforeEach(async () => {
  await scriptedModel.reset();
});

/** `left`: the quota shown after the Retry (a failed attempt counts only if some of its reply was shown, ADR 044). */
async function retryThenExpectOneExchange(page: Page, text: string, left = "19 messages left today") {
  const alert = page.getByRole("alert");
  await alert.getByRole("button", { name: "Retry" }).click();
  await expect(replies(page)).toHaveText([new RegExp(`You said: ${text}`)]);
  await expect(userMessages(page)).toHaveText([new RegExp(text)]);
  await expect(page.getByRole("alert")).toHaveCount(0);

  await expectConversationUrl(page);
  await page.reload();
  await expect(userMessages(page)).toHaveText([new RegExp(text)]);
  await expect(replies(page)).toHaveText([new RegExp(`You said: ${text}`)]);
  await expect(page.getByText(left)).toBeVisible();
}

test.describe("the assistant when a backend fails, then recovers", () => {
  test("the model dropping the connection mid-reply: the text stays with Retry; Retry stores one message and one reply", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.enqueue({ type: "drop", text: ["Half ", "an ", "answer"], chunkDelayMs: 300 });
    await sendMessage(page, "Tell me everything");

    await expect(replies(page).getByText("Half an")).toBeVisible();
    await expect(page.getByRole("alert")).toContainText(
      "The connection to the model was lost in the middle of the reply.",
    );
    await expect(userMessages(page)).toHaveText([/Tell me everything/]);
    // "Half an" was shown, so that attempt counts as well as the stored exchange.
    await retryThenExpectOneExchange(page, "Tell me everything", "18 messages left today");
  });

  test("the model not answering: after its timeout the text stays with Retry; Retry stores one message and one reply", async ({
    page,
    newAccount,
  }) => {
    test.setTimeout(45_000);
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.failWith({ type: "stall" });
    await sendMessage(page, "Are you there");
    // LLM_TIMEOUT_MS is 5 s in playwright.config.ts.
    await expect(page.getByRole("alert")).toContainText("The model took too long to answer.", { timeout: 10_000 });
    await expect(userMessages(page)).toHaveText([/Are you there/]);

    await scriptedModel.failWith(null);
    await retryThenExpectOneExchange(page, "Are you there");
  });

  test("a store failing on send (503): the text stays with Retry; Retry stores one message and one reply", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await page.route("**/api/chat", (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: "Conversations can't be reached right now. Please try again shortly." }),
      }),
    );
    await sendMessage(page, "Keep this safe");
    await expect(page.getByRole("alert")).toContainText("Conversations can't be reached right now.");
    await expect(userMessages(page)).toHaveText([/Keep this safe/]);
    await expect(replies(page)).toHaveCount(0);

    await page.unroute("**/api/chat");
    await retryThenExpectOneExchange(page, "Keep this safe");
  });
});
