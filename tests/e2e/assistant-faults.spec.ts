import type { Page } from "@playwright/test";
import { expect, signIn, test } from "./fixtures";
import {
  conversationList,
  expectConversationUrl,
  expectNoneWriting,
  replies,
  scriptedModel,
  sendMessage,
  userMessages,
} from "./assistant-support";

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
    test.slow();
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

/** The way on after a failure: one Retry, in the notice under the transcript, whatever failed; the failed reply offers no Regenerate beside it. */
async function expectOneRetryUnderTheReply(page: Page) {
  const alert = page.getByRole("alert");
  await expect(page.getByRole("button", { name: "Retry" })).toHaveCount(1);
  await expect(alert.getByRole("button", { name: "Retry" })).toBeVisible();
  const last = page.getByRole("log", { name: "Conversation" }).getByRole("article").last();
  if ((await last.getAttribute("aria-label")) === "Assistant") {
    await expect(last.getByRole("button", { name: "Regenerate" })).toHaveCount(0);
  }
  // Below the last message, whatever the failure.
  expect((await alert.boundingBox())!.y).toBeGreaterThan((await last.boundingBox())!.y);
}

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

for (const size of SIZES) {
  test.describe(`one Retry for every failure (${size.name})`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test("a reply cut off mid-stream, one the model refused and one that never started each offer one Retry in one notice", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await page.goto("/nuvara");
      await scriptedModel.enqueue({ type: "drop", text: ["Half ", "an ", "answer"], chunkDelayMs: 300 });
      await sendMessage(page, "Tell me everything");
      await expect(replies(page).getByText("Half an")).toBeVisible();
      await expect(page.getByRole("alert")).toBeVisible();
      await expectOneRetryUnderTheReply(page);
      await page.screenshot({ path: `/tmp/retry-dropped-${size.name}.png` });
      await page.getByRole("button", { name: "Retry" }).click();
      await expect(replies(page)).toHaveText([/You said: Tell me everything/]);
      // A reply that succeeded offers Regenerate again.
      await expect(replies(page).getByRole("button", { name: "Regenerate" })).toBeVisible();

      await scriptedModel.enqueue({ type: "http-error", status: 503 });
      await sendMessage(page, "Second question");
      await expect(page.getByRole("alert")).toBeVisible();
      await expectOneRetryUnderTheReply(page);

      await page.route("**/api/chat", (route) =>
        route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: "Down." }) }),
      );
      await page.getByRole("button", { name: "Retry" }).click();
      await expect(page.getByRole("alert")).toContainText("Down.");
      await expectOneRetryUnderTheReply(page);
    });

    test("a reply whose server went away shows the same notice, with Retry and Continue, and no Regenerate", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await page.goto("/nuvara");
      await sendMessage(page, "Long story");
      await expect(replies(page)).toHaveText([/You said: Long story/]);
      await expectConversationUrl(page);
      await expectNoneWriting(page);
      // As the page reads a reply stored as interrupted (its server went away mid-reply, app/chat/runs/interrupted.server.ts).
      await page.route(/_data=routes%2Fnuvara\.%24conversationId/, async (route) => {
        const response = await route.fetch();
        const body = (await response.text()).replace(/"status":"completed"/g, '"status":"interrupted"');
        await route.fulfill({ response, body });
      });
      await page.goto("/nuvara");
      if (size.name === "phone") await page.getByRole("button", { name: "Conversations" }).click();
      await conversationList(page).getByRole("link", { name: "Long story" }).click();
      const alert = page.getByRole("alert");
      await expect(alert).toContainText(
        "The server writing this reply went away before it finished; what it wrote is kept.",
      );
      await expect(alert.getByRole("button", { name: "Continue" })).toBeVisible();
      await expectOneRetryUnderTheReply(page);
      await page.screenshot({ path: `/tmp/retry-interrupted-${size.name}.png` });
      await page.unroute(/_data=routes%2Fnuvara\.%24conversationId/);
      await alert.getByRole("button", { name: "Retry" }).click();
      await expect(page.getByRole("alert")).toHaveCount(0);
      await expect(replies(page).last()).toHaveText(/You said: Long story/);
    });
  });
}
