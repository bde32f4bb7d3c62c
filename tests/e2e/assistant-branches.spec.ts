import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import {
  composer,
  expectConversationUrl,
  lastModelRequest,
  replies,
  scriptedModel,
  sendMessage,
  userMessages,
} from "./assistant-support";
import { expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";

/**
 * Branches (docs/decisions/069): an edit of any message and a regenerated
 * reply keep the earlier version, reachable with ‹ n/m ›; the version shown
 * survives a reload. At a desktop and a phone size, with axe on each state.
 */

test.beforeEach(async () => {
  await scriptedModel.reset();
});

/** The ‹ n/m › of a message. */
function versions(message: ReturnType<Page["locator"]>) {
  const group = message.getByRole("group", { name: /^Version \d+ of \d+$/ });
  return {
    group,
    /** The "2/3" between the buttons. */
    count: group.getByText(/^\d+\/\d+$/),
    previous: message.getByRole("button", { name: "Previous version" }),
    next: message.getByRole("button", { name: "Next version" }),
  };
}

/** Clicks ‹ or › and waits until the server keeps the version shown (what a reload shows). */
async function switchVersion(page: Page, button: ReturnType<Page["locator"]>) {
  const stored = page.waitForResponse(
    (response) => response.request().method() === "POST" && /\/nuvara\/[0-9a-f-]{36}/.test(response.url()),
  );
  await button.click();
  expect((await stored).status()).toBe(200);
}

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

for (const size of SIZES) {
  test.describe(`branches at ${size.width}×${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test("editing an earlier message keeps the old version and its reply; the branch shown survives a reload", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await page.goto("/nuvara");
      await sendMessage(page, "Plan a day in Lisbon");
      await expect(replies(page)).toHaveText([/You said: Plan a day in Lisbon/]);
      await expectConversationUrl(page);
      await sendMessage(page, "And in the evening?");
      await expect(replies(page)).toHaveText([/You said: Plan a day in Lisbon/, /You said: And in the evening\?/]);

      // Edit the first message (not the last): the new version replaces what follows it on screen.
      const first = userMessages(page).first();
      await first.getByRole("button", { name: "Edit" }).click();
      await page.getByRole("textbox", { name: "Edit your message" }).fill("Plan a day in Porto");
      await page.getByRole("button", { name: "Save and send" }).click();
      await expect(userMessages(page)).toHaveText([/Plan a day in Porto/]);
      await expect(replies(page)).toHaveText([/You said: Plan a day in Porto/]);
      await expect(composer(page).box).toBeFocused();
      await expect(versions(first).count).toHaveText("2/2");
      await expect(versions(first).group).toHaveAccessibleName("Version 2 of 2");
      await expect(versions(first).next).toBeDisabled();
      // The model was sent the new branch only.
      const sent = JSON.stringify((await lastModelRequest())?.messages);
      expect(sent).toContain("Plan a day in Porto");
      expect(sent).not.toContain("Lisbon");
      await expectNoAxeViolations(page, `edited, 2/2 (${size.name})`);
      await reviewShots(page, `branches-edited-${size.name}`);

      // Back to the first version: its text and what followed it, both replies.
      await switchVersion(page, versions(first).previous);
      await expect(userMessages(page)).toHaveText([/Plan a day in Lisbon/, /And in the evening\?/]);
      await expect(replies(page)).toHaveText([/You said: Plan a day in Lisbon/, /You said: And in the evening\?/]);
      await expect(versions(userMessages(page).first()).count).toHaveText("1/2");
      // The cursor stays on the switch (Previous is disabled now, so on Next).
      await expect(versions(userMessages(page).first()).next).toBeFocused();
      await expectNoAxeViolations(page, `first version, 1/2 (${size.name})`);
      await reviewShots(page, `branches-first-version-${size.name}`);

      await page.reload();
      await expect(userMessages(page)).toHaveText([/Plan a day in Lisbon/, /And in the evening\?/]);
      await expect(versions(userMessages(page).first()).count).toHaveText("1/2");
      await switchVersion(page, versions(userMessages(page).first()).next);
      await expect(userMessages(page)).toHaveText([/Plan a day in Porto/]);
      await page.reload();
      await expect(userMessages(page)).toHaveText([/Plan a day in Porto/]);
      await expect(versions(userMessages(page).first()).count).toHaveText("2/2");
    });

    test("regenerating a reply keeps both replies, reachable with ‹ ›; a reload keeps the one shown", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await page.goto("/nuvara");
      await scriptedModel.enqueue(
        { type: "text", text: "Joke one." },
        { type: "text", text: "Later reply." },
        { type: "text", text: "Joke two." },
      );
      await sendMessage(page, "Tell me a joke");
      await expect(replies(page)).toHaveText([/Joke one\./]);
      await expectConversationUrl(page);
      await sendMessage(page, "Another topic");
      await expect(replies(page)).toHaveText([/Joke one\./, /Later reply\./]);

      // Regenerate the earlier reply (not the last one).
      await replies(page).first().getByRole("button", { name: "Regenerate" }).click();
      await expect(replies(page)).toHaveText([/Joke two\./]);
      await expect(userMessages(page)).toHaveText([/Tell me a joke/]);
      await expect(versions(replies(page).first()).count).toHaveText("2/2");
      expect(JSON.stringify((await lastModelRequest())?.messages)).not.toContain("Another topic");
      await expectNoAxeViolations(page, `regenerated, 2/2 (${size.name})`);
      await reviewShots(page, `branches-regenerated-${size.name}`);

      await switchVersion(page, versions(replies(page).first()).previous);
      await expect(replies(page)).toHaveText([/Joke one\./, /Later reply\./]);
      await expect(versions(replies(page).first()).count).toHaveText("1/2");
      await page.reload();
      await expect(replies(page)).toHaveText([/Joke one\./, /Later reply\./]);
      await switchVersion(page, versions(replies(page).first()).next);
      await expect(replies(page)).toHaveText([/Joke two\./]);
      await expect(versions(replies(page).first()).count).toHaveText("2/2");
      await page.reload();
      await expect(replies(page)).toHaveText([/Joke two\./]);
    });
  });
}
