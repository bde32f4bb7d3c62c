import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { conversationList, replies, userMessages } from "./assistant-support";
import { expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";
import { chatgptBranched, chatgptExport, chatgptLooping, exportZip } from "../support/import-fixtures";

/**
 * Importing chats (docs/decisions/104): a ChatGPT export's zip uploaded on
 * the dashboard, its progress and result; the imported chat opens with its
 * branches and says which file its export did not include.
 */

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

/** Sixty chats from 2024, the branched one last (2025: first in the list), and one that cannot be read. */
function chatgptZip() {
  return Buffer.from(
    exportZip([
      ...chatgptExport(60, 2, 20),
      chatgptLooping(),
      chatgptBranched("gpt-lisbon-e2e", "Trip to Lisbon", 1_750_000_000),
    ]),
  );
}

/** axe on the page as it is, in the light theme and (its colours) in the dark one. */
async function expectAccessibleInBothThemes(page: Page, state: string) {
  await expectNoAxeViolations(page, `${state}, light`);
  await page.emulateMedia({ colorScheme: "dark" });
  await expectNoAxeViolations(page, `${state}, dark`, { coloursOnly: true });
  await page.emulateMedia({ colorScheme: "light" });
}

for (const size of SIZES) {
  test.describe(`import at ${size.width}×${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test("a ChatGPT zip imports with progress and a result; an imported chat opens with its branches", async ({
      page,
      newAccount,
    }) => {
      test.setTimeout(180_000);
      await signIn(page, await newAccount());
      await page.goto("/dashboard");
      const section = page.getByRole("region", { name: "Import chats" });
      await expect(section.getByText(/Bring your history from ChatGPT or Claude\.ai/)).toBeVisible();
      await expectAccessibleInBothThemes(page, `import section (${size.name})`);

      // Not an export: said, and nothing starts.
      await section
        .getByLabel("Export file")
        .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
      await section.getByRole("button", { name: "Import chats" }).click();
      await expect(section.getByRole("alert")).toHaveText(/neither a zip nor a JSON file/);

      await section
        .getByLabel("Export file")
        .setInputFiles({ name: "chatgpt-export.zip", mimeType: "application/zip", buffer: chatgptZip() });
      await section.getByRole("button", { name: "Import chats" }).click();
      // Progress while it runs (the count moves as the background job imports).
      await expect(section.getByRole("progressbar", { name: "Import progress" })).toBeVisible();
      await expect(section.getByText(/^Importing chatgpt-export\.zip: [\d,]+ of 62 conversations…$/)).toBeVisible();
      await reviewShots(page, `import-progress-${size.name}`);

      // The result, with the conversation skipped and why.
      await expect(section.getByText("Imported 61 conversations from ChatGPT; 1 skipped:")).toBeVisible({
        timeout: 60_000,
      });
      await expect(section.getByRole("list", { name: "Conversations skipped" }).getByRole("listitem")).toHaveText([
        "“Looping”: its messages' parents form a loop",
      ]);
      await expectAccessibleInBothThemes(page, `import done (${size.name})`);
      await section.scrollIntoViewIfNeeded();
      await reviewShots(page, `import-done-${size.name}`);

      // In the list by its original date (the latest, so first), and it opens like any chat.
      await section.getByRole("link", { name: "Open your chats" }).click();
      const list = conversationList(page);
      if (size.width < 600) await page.getByRole("button", { name: "Conversations" }).click();
      await list.getByRole("link", { name: "Trip to Lisbon" }).click();
      await expect(userMessages(page)).toHaveText([/Plan three days in Lisbon\./, /Make it vegetarian\./]);
      await expect(replies(page)).toHaveText([/Day 1: Alfama/, /Vegetarian, take two: Jardim dos Sentidos\./]);
      await expect(userMessages(page).first()).toContainText("Attachment not included in the export: itinerary.pdf");
      const lastReply = replies(page).last();
      await expect(lastReply.getByRole("group", { name: "Version 2 of 2" })).toBeVisible();
      await expect(userMessages(page).last().getByRole("group", { name: "Version 2 of 2" })).toBeVisible();
      await expectAccessibleInBothThemes(page, `imported chat (${size.name})`);
      await reviewShots(page, `import-chat-${size.name}`);

      // The other reply, and the question before the edit with its own reply.
      await lastReply.getByRole("button", { name: "Previous version" }).click();
      await expect(replies(page).last()).toHaveText(/Vegetarian: try Ao 26\./);
      await userMessages(page).last().getByRole("button", { name: "Previous version" }).click();
      await expect(userMessages(page)).toHaveText([/Plan three days in Lisbon\./, /Make it cheaper\./]);
      await expect(replies(page).last()).toHaveText(/Cheaper: walk and take tram 28\./);
    });
  });
}
