import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";
import {
  composer,
  expectConversationUrl,
  lastModelRequest,
  replies,
  scriptedModel,
  sendMessage,
  userMessages,
} from "./assistant-support";

test.beforeEach(async () => {
  await scriptedModel.reset();
});

/** A long log with one line that answers the question (it is retrieved, not sent whole). */
const LOG = [
  ...Array.from({ length: 500 }, (_, i) => `Entry ${i}: the harbour was calm and the boats came in on time.`),
  "Entry 500: the secret launch code is PELICAN-42, kept by the harbour master.",
  ...Array.from({ length: 500 }, (_, i) => `Record ${i}: nothing unusual was noted by the watch.`),
].join("\n");

const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** Drops files on the chat as a person dragging them from their desktop would. */
async function dropFiles(page: Page, files: Array<{ name: string; type: string; text: string }>) {
  const transfer = await page.evaluateHandle((list) => {
    const data = new DataTransfer();
    for (const file of list) data.items.add(new File([file.text], file.name, { type: file.type }));
    return data;
  }, files);
  const chat = page.locator("section.chat");
  // A drop before the page is live reaches no handler: wait for it, as for Attach files.
  await expect(page.getByRole("button", { name: "Attach files" })).toBeEnabled({ timeout: 20_000 });
  await chat.dispatchEvent("dragenter", { dataTransfer: transfer });
  await chat.dispatchEvent("dragover", { dataTransfer: transfer });
  await expect(page.getByText("Drop files to attach them")).toBeVisible();
  await chat.dispatchEvent("drop", { dataTransfer: transfer });
}

const pending = (page: Page) => page.getByRole("list", { name: "Attached files" });

test.describe("files in the chat", () => {
  test("a dropped document uploads with its progress, goes with the message, and the reply shows the passage it used", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await dropFiles(page, [{ name: "harbour-log.txt", type: "text/plain", text: LOG }]);
    const chip = pending(page).getByRole("listitem");
    await expect(chip).toContainText("harbour-log.txt");
    await expect(chip).toContainText(/\d+ KB/);
    await expect(chip.getByRole("progressbar")).toHaveCount(0);
    await expectNoAxeViolations(page, "a file waiting in the composer");

    await scriptedModel.enqueue({ type: "text", text: "The code is PELICAN-42 [1]." });
    await sendMessage(page, "What is the secret launch code?");
    await expect(replies(page).last()).toContainText("The code is PELICAN-42 [1].");
    await expect(pending(page)).toHaveCount(0);

    // The model was given the passage, not the whole log.
    const sent = JSON.stringify(await lastModelRequest());
    expect(sent).toContain("PELICAN-42");
    expect(sent).not.toContain("Entry 100:");

    // The message shows its file (a download); the reply its Sources, each opening to its passage.
    await expect(
      userMessages(page)
        .last()
        .getByRole("link", { name: /harbour-log\.txt/ }),
    ).toHaveAttribute("download", "harbour-log.txt");
    const reply = replies(page).last();
    // Once the new chat has its address (its page is the conversation's from then on) and the reply is stored.
    await expectConversationUrl(page);
    await expect(reply.getByRole("button", { name: "Copy reply" })).toBeVisible();
    // The citation is a link to the passage it cites, which following it opens; only cited passages are listed.
    await expect(reply.locator("summary", { hasText: "Sources" })).toHaveText("Sources (1)");
    const citation = reply.getByRole("link", { name: /^Source 1: harbour-log\.txt, lines \d+–\d+$/ });
    await expect(citation).toHaveText("[1]");
    await citation.click();
    await expect(reply.locator(".source-text")).toContainText("the secret launch code is PELICAN-42");
    await expect(reply.locator(".source-text")).toBeInViewport();
    await expectNoAxeViolations(page, "a reply with its sources open");
    await reviewShots(page, "cited-source-1280");

    // After a reload, from the stored conversation.
    await page.reload();
    await expect(
      userMessages(page)
        .last()
        .getByRole("link", { name: /harbour-log\.txt/ }),
    ).toBeVisible();
    await expect(replies(page).last().getByText("Sources")).toBeVisible();
  });

  test("a question about an image lists no Sources from the conversation's document", async ({ page, newAccount }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await dropFiles(page, [{ name: "menu.txt", type: "text/plain", text: "Soup of the day: leek and potato." }]);
    await expect(pending(page).getByRole("listitem").getByRole("progressbar")).toHaveCount(0);
    await scriptedModel.enqueue({ type: "text", text: "Leek and potato [1]." });
    await sendMessage(page, "What is the soup?");
    await expect(replies(page).last()).toContainText("Leek and potato [1].");
    await expect(replies(page).last().locator("summary", { hasText: "Sources" })).toHaveText("Sources (1)");
    await expectConversationUrl(page);
    await expect(replies(page).last().getByRole("button", { name: "Copy reply" })).toBeVisible();

    await page
      .getByTestId("attach-input")
      .setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: Buffer.from(PNG_BASE64, "base64") });
    await expect(pending(page).getByRole("listitem").locator("img.attachment-thumb")).toBeVisible();
    await scriptedModel.enqueue({ type: "text", text: "A single dark dot." });
    await sendMessage(page, "What is in this picture?");
    await expect(replies(page)).toHaveCount(2);
    await expect(replies(page).last()).toContainText("A single dark dot.");
    // The model was still given the document, numbered so a reply could cite it; this one did not.
    expect(JSON.stringify(await lastModelRequest())).toContain('<document number=\\"1\\" name=\\"menu.txt\\">');
    await expect(replies(page).last().getByRole("button", { name: "Copy reply" })).toBeVisible();
    await expect(replies(page).last().getByText("Sources")).toHaveCount(0);
    await page.reload();
    await expect(replies(page).last()).toContainText("A single dark dot.");
    await expect(replies(page).last().getByText("Sources")).toHaveCount(0);
    await expect(replies(page).first().locator("summary", { hasText: "Sources" })).toHaveText("Sources (1)");
    await replies(page).first().getByRole("link", { name: "Source 1: menu.txt, whole document" }).click();
    await expect(replies(page).first().locator(".source-text")).toBeInViewport();
    await reviewShots(page, "cited-source-390");
  });

  test("files attached while a new chat's first reply is on its way stay on their chips as the chat takes its address, and go with the next message", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    // The reply's words come slowly: the chat keeps /nuvara until the first one shows, then moves to its own page.
    await scriptedModel.enqueue({ type: "text", text: ["Noted", " the", " plan."], chunkDelayMs: 1500 });
    await sendMessage(page, "I'll send the timetable and the fares");
    await expect(composer(page).stop).toBeVisible();
    const attach = (name: string, text: string) =>
      page.getByTestId("attach-input").setInputFiles({ name, mimeType: "text/plain", buffer: Buffer.from(text) });
    const chips = pending(page).getByRole("listitem");
    await attach("timetable.txt", "The ferry leaves at 07:15 from pier 3.");
    await expect(chips).toHaveText([/timetable\.txt/]);

    // The chat takes its address while the reply streams; the file chosen before goes with it.
    await expectConversationUrl(page);
    await expect(chips).toHaveText([/timetable\.txt/]);
    await expect(replies(page).first()).toContainText("Noted the plan.");
    await expect(replies(page).first().getByRole("button", { name: "Copy reply" })).toBeVisible();
    // One more on the conversation's own page: both go with the next message. (A file chosen in the
    // very moment the page swaps views lands on an input that is being removed: not tested here.)
    await attach("fares.txt", "A return ticket costs 12 euros.");
    await expect(chips).toHaveText([/timetable\.txt/, /fares\.txt/]);
    await expect(chips.getByRole("progressbar")).toHaveCount(0);

    await sendMessage(page, "When does the ferry leave, and what does it cost?");
    // The scripted model echoes what it got: both files went with the message.
    await expect(replies(page).nth(1)).toContainText("The ferry leaves at 07:15 from pier 3.");
    await expect(replies(page).nth(1)).toContainText("A return ticket costs 12 euros.");
    await expect(userMessages(page).nth(1).getByRole("link")).toHaveText([/timetable\.txt/, /fares\.txt/]);
    await expect(pending(page)).toHaveCount(0);
  });

  test("an image is attached by button or paste, shows a thumbnail, and a model that can't see images is named before sending", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await page
      .getByTestId("attach-input")
      .setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: Buffer.from(PNG_BASE64, "base64") });
    const chip = pending(page).getByRole("listitem").filter({ hasText: "dot.png" });
    const thumbnail = chip.locator("img.attachment-thumb");
    await expect(thumbnail).toBeVisible();
    // The picture itself shows (the page's CSP lets the image's object URL load), not a broken icon.
    await expect
      .poll(() => thumbnail.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth))
      .toBeGreaterThan(0);

    // A pasted file is attached too (the text box keeps its text).
    const { box, send } = composer(page);
    await box.fill("What colour is it?");
    await box.evaluate((element) => {
      const data = new DataTransfer();
      data.items.add(new File(["pasted words"], "clip.txt", { type: "text/plain" }));
      element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await expect(pending(page).getByRole("listitem")).toHaveCount(2);
    await expect(box).toHaveValue("What colour is it?");

    await page.getByRole("combobox", { name: "Model" }).selectOption({ label: "Test Model B" });
    await expect(
      page.getByText("Test Model B can't see images. Choose a model that can, or remove the image."),
    ).toBeVisible();
    await expect(send).toBeDisabled();
    await page.getByRole("combobox", { name: "Model" }).selectOption({ label: "test-model" });
    await expect(send).toBeEnabled();

    await chip.getByRole("button", { name: "Remove dot.png" }).click();
    await expect(pending(page).getByRole("listitem")).toHaveCount(1);
    await box.press("Enter");
    // The scripted model echoes what it got: the pasted file's text arrived as a document.
    await expect(replies(page).last()).toContainText("pasted words");
    await expect(
      userMessages(page)
        .last()
        .getByRole("link", { name: /clip\.txt/ }),
    ).toBeVisible();
  });

  test("a file the assistant can't read is refused on its chip, with the reason, and the message can still be sent", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await page.getByTestId("attach-input").setInputFiles({
      name: "tool.exe",
      mimeType: "application/octet-stream",
      buffer: Buffer.from([0x4d, 0x5a, 0, 0, 0xff, 0xfe, 0, 1]),
    });
    const chip = pending(page).getByRole("listitem");
    await expect(chip).toContainText(`"tool.exe" isn't a kind of file the assistant can read.`);
    await sendMessage(page, "Hello anyway");
    await expect(replies(page).last()).toContainText("Hello anyway");
  });
});
