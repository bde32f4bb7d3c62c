import { expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";
import {
  composer,
  conversationList,
  expectConversationUrl,
  modelRequestFor,
  replies,
  scriptedModel,
  sendMessage,
  userMessages,
} from "./assistant-support";

test.beforeEach(async () => {
  await scriptedModel.reset();
});

test.describe("chatting at /nuvara", () => {
  test("a first message streams a reply, the conversation gets its URL and title, and reload restores it", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await expect(page).toHaveTitle("Assistant · Nuvara²");
    await scriptedModel.enqueue({
      type: "text",
      text: ["Here is **bold** advice:\n\n", "- first\n", "- second\n\n", "| a | b |\n|---|---|\n| 1 | 2 |\n"],
      chunkDelayMs: 400,
    });
    await sendMessage(page, "Give me some advice");

    // The reply appears while it streams, before it is complete.
    await expect(replies(page).getByText("Here is")).toBeVisible();
    await expect(replies(page).getByRole("cell", { name: "2" })).toHaveCount(0);
    await expect(replies(page).getByRole("cell", { name: "2" })).toBeVisible();
    await expectConversationUrl(page);
    await expect(conversationList(page).getByRole("link", { name: "Give me some advice" })).toBeVisible();

    await page.reload();
    await expect(userMessages(page)).toHaveText([/Give me some advice/]);
    const reply = replies(page).first();
    await expect(reply.locator("strong", { hasText: "bold" })).toBeVisible();
    await expect(reply.getByRole("listitem")).toHaveText(["first", "second"]);
    await expect(reply.getByRole("table")).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: "Give me some advice" })).toBeVisible();
  });

  test("Enter sends, Shift+Enter adds a line, and the box grows with its text", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const { box, send } = composer(page);
    await box.fill("line one");
    await expect(send).toBeEnabled();
    const oneLine = (await box.boundingBox())!.height;
    await box.press("Shift+Enter");
    await box.pressSequentially("line two");
    await box.press("Shift+Enter");
    await box.pressSequentially("line three");
    await expect(box).toHaveValue("line one\nline two\nline three");
    expect((await box.boundingBox())!.height).toBeGreaterThan(oneLine + 20);
    await expect(userMessages(page)).toHaveCount(0);

    await box.press("Enter");
    await expect(userMessages(page)).toHaveText([/line one\s+line two\s+line three/]);
    await expect(replies(page)).toHaveText([/You said: line one/]);
    await expect(box).toHaveValue("");
  });

  test("a draft is kept per conversation when the user navigates away", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await sendMessage(page, "First conversation");
    await expect(replies(page)).toHaveText([/You said: First conversation/]);
    await expectConversationUrl(page);
    const first = page.url();

    await composer(page).box.fill("half-written thought");
    await page.getByRole("link", { name: "New chat" }).click();
    await expect(page).toHaveURL(/\/nuvara$/);
    await expect(composer(page).box).toHaveValue("");
    await composer(page).box.fill("a new chat's draft");

    await page.goto(first);
    await expect(composer(page).box).toHaveValue("half-written thought");
    await page.getByRole("link", { name: "New chat" }).click();
    await expect(composer(page).box).toHaveValue("a new chat's draft");
  });

  test("Stop ends the reply and the model request; the partial reply is kept, marked stopped", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.enqueue({
      type: "text",
      text: "one two three four five six seven eight nine ten eleven twelve",
      chunkDelayMs: 250,
    });
    await sendMessage(page, "Count slowly");
    await expect(replies(page).getByText("one two")).toBeVisible();
    await composer(page).stop.click();

    await expect(replies(page).getByText("Stopped")).toBeVisible();
    await expect.poll(async () => (await scriptedModel.state()).abortedCount).toBe(1);
    await expect(composer(page).send).toBeVisible();

    await expectConversationUrl(page);
    await page.reload();
    await expect(replies(page).first()).toContainText("one two");
    await expect(replies(page).first()).not.toContainText("twelve");
    await expect(replies(page).first().getByText("Stopped")).toBeVisible();
  });

  test("closing the tab mid-reply does not stop it: reopened, the reply has gone on to its end (ADR 070)", async ({
    context,
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await sendMessage(page, "Hello");
    await expect(replies(page)).toHaveCount(1);
    await expectConversationUrl(page);
    const url = page.url();
    await scriptedModel.enqueue({
      type: "text",
      text: "alpha beta gamma delta epsilon zeta eta theta iota kappa",
      chunkDelayMs: 150,
    });
    await sendMessage(page, "Greek letters please");
    await expect(replies(page).getByText("alpha beta")).toBeVisible();
    await page.close();

    const again = await context.newPage();
    await again.goto(url);
    await expect(replies(again).nth(1)).toContainText("kappa", { timeout: 10_000 });
    await expect(replies(again).nth(1).getByText("Stopped")).toHaveCount(0);
    expect((await scriptedModel.state()).abortedCount).toBe(0);
  });

  test("a provider error shows in plain words with Retry; the message is not lost or sent twice", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.failWith({ type: "http-error", status: 500 });
    await sendMessage(page, "Please answer this");
    const alert = page.getByRole("alert");
    await expect(alert).toContainText("The model service had a problem answering. Please try again.");
    await expect(userMessages(page)).toHaveText([/Please answer this/]);

    await scriptedModel.failWith(null);
    await alert.getByRole("button", { name: "Retry" }).click();
    await expect(replies(page)).toHaveText([/You said: Please answer this/]);
    await expect(page.getByRole("alert")).toHaveCount(0);

    await expectConversationUrl(page);
    await page.reload();
    await expect(userMessages(page)).toHaveCount(1);
    await expect(replies(page)).toHaveCount(1);
    await expect(page.getByText("19 messages left today")).toBeVisible();
  });

  test("a network failure keeps the text: after a reload it is back in the composer", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await sendMessage(page, "Start here");
    await expect(replies(page)).toHaveText([/You said: Start here/]);
    await expectConversationUrl(page);
    await page.route("**/api/chat", (route) => route.abort("internetdisconnected"));
    await sendMessage(page, "This must not get lost");
    await expect(page.getByRole("alert")).toContainText("The connection was lost");
    await page.unroute("**/api/chat");

    await page.reload();
    await expect(composer(page).box).toHaveValue("This must not get lost");
    await expect(page.getByText("Your last message wasn't confirmed as sent")).toBeVisible();
  });

  test("a tool call appears as a line saying what it did, opening to its raw input and result", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.enqueue(
      {
        type: "tool-calls",
        calls: [
          { name: "calculator", arguments: { expression: "19.99 * 3 * 1.08" } },
          { name: "convert_units", arguments: { value: 5, from: "km", to: "mi" } },
          { name: "current_datetime", arguments: { timeZone: "Asia/Tokyo" } },
        ],
      },
      { type: "text", text: "That comes to 64.77." },
    );
    await sendMessage(page, "What do three at 19.99 cost with 8% tax?");
    const reply = replies(page).first();
    await expect(reply).toContainText("That comes to 64.77.");
    await expectConversationUrl(page);
    const step = reply.getByText("Calculated 19.99 × 3 × 1.08 ≈ 64.77");
    await expect(step).toBeVisible();
    await expect(reply.getByText("Converted 5 km → about 3.11 mi")).toBeVisible();
    await expect(reply.getByText("Looked up the time in Tokyo")).toBeVisible();
    await expect(reply.getByText('"result": "64.7676"')).toBeHidden();
    await step.click();
    await expect(reply.getByText('"result": "64.7676"')).toBeVisible();

    await page.reload();
    await replies(page).first().getByText("Calculated 19.99 × 3 × 1.08 ≈ 64.77").click();
    await expect(replies(page).first().getByRole("definition").first()).toHaveText(
      /"expression": "19\.99 \* 3 \* 1\.08"/,
    );
    await expect(replies(page).first().getByText('"result": "64.7676"')).toBeVisible();
    await reviewShots(page, "tool-steps-1280");
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(replies(page).first().getByText("Converted 5 km → about 3.11 mi")).toBeInViewport({ ratio: 1 });
    await reviewShots(page, "tool-steps-390");
  });

  test("regenerate shows a new version of the last reply, and the last message can be edited and sent again (versions: assistant-branches.spec.ts)", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.enqueue({ type: "text", text: "First try." }, { type: "text", text: "Second try." });
    await sendMessage(page, "Tell me something");
    await expect(replies(page)).toHaveText([/First try\./]);
    await expectConversationUrl(page);
    await replies(page).getByRole("button", { name: "Regenerate" }).click();
    await expect(replies(page)).toHaveText([/Second try\./]);

    await userMessages(page).getByRole("button", { name: "Edit" }).click();
    const editor = page.getByRole("textbox", { name: "Edit your message" });
    await editor.fill("Tell me something else");
    await page.getByRole("button", { name: "Save and send" }).click();
    await expect(userMessages(page)).toHaveText([/Tell me something else/]);
    await expect(replies(page)).toHaveText([/You said: Tell me something else/]);

    await page.reload();
    await expect(userMessages(page)).toHaveText([/Tell me something else/]);
    await expect(replies(page)).toHaveText([/You said: Tell me something else/]);
  });

  test("copy a reply, export the conversation as Markdown", async ({ page, context, newAccount }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.enqueue({ type: "text", text: "Copy **me**, please." });
    await sendMessage(page, "Something to copy");
    await expect(replies(page)).toHaveText([/Copy me, please\./]);
    await expectConversationUrl(page);
    await replies(page).getByRole("button", { name: "Copy reply" }).click();
    await expect(replies(page).getByText("Copied")).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("Copy **me**, please.");

    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Export" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe("something-to-copy.md");
    const text = await new Response((await file.createReadStream()) as unknown as ReadableStream).text();
    expect(text).toContain("# Something to copy");
    expect(text).toContain("**You**");
    expect(text).toContain("Copy **me**, please.");
  });

  test("the model picker lists the configured models and keeps the choice per conversation", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    const picker = page.getByRole("combobox", { name: "Model" });
    await expect(picker.getByRole("option")).toHaveText(["test-model", "Test Model B"]);
    await expect(picker).toHaveValue("test-model");
    await picker.selectOption("test-model-b");
    await sendMessage(page, "Which model?");
    await expect(replies(page)).toHaveCount(1);
    expect((await modelRequestFor("Which model?")).model).toBe("test-model-b");
    await expect(replies(page).getByText("test-model-b")).toBeVisible();
    await expectConversationUrl(page);

    await page.reload();
    await expect(page.getByRole("combobox", { name: "Model" })).toHaveValue("test-model-b");
    await page.getByRole("link", { name: "New chat" }).click();
    await expect(page.getByRole("combobox", { name: "Model" })).toHaveValue("test-model");
  });

  test("a model chosen in the page before it is live is kept when it comes alive, and the reply comes from it", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    // The page's scripts wait (as on a slow device or network) until the choice is made in the server's page.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/build/**/*.js", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/nuvara", { waitUntil: "commit" });
    const picker = page.getByRole("combobox", { name: "Model" });
    await picker.selectOption({ label: "Test Model B" });
    release();
    await expect(composer(page).send).toBeDisabled();
    await composer(page).box.fill("Which model answers");
    await expect(composer(page).send).toBeEnabled({ timeout: 20_000 });
    await expect(picker).toHaveValue("test-model-b");
    await composer(page).box.press("Enter");
    await expect(replies(page)).toHaveCount(1);
    expect((await modelRequestFor("Which model answers")).model).toBe("test-model-b");
    await expect(picker).toHaveValue("test-model-b");
  });

  test("custom instructions apply to new chats and show as active", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("menuitem", { name: "Custom instructions: off" }).click();
    const dialog = page.getByRole("dialog", { name: "Custom instructions" });
    await dialog.getByRole("textbox").fill("Always answer in haiku.");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(dialog).toBeHidden();
    await page.getByRole("button", { name: "Settings" }).click();
    await expect(page.getByRole("menuitem", { name: "Custom instructions: on" })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByText("Custom instructions on")).toBeVisible();

    await sendMessage(page, "Describe the sea");
    await expect(replies(page)).toHaveCount(1);
    const system = (await modelRequestFor("Describe the sea")).messages?.find((message) => message.role === "system");
    expect(system?.content).toContain("Always answer in haiku.");
    await expectConversationUrl(page);
    await page.reload();
    await page.getByText("Custom instructions on").click();
    await expect(page.getByText("Always answer in haiku.")).toBeVisible();
  });

  test("Report on a reply sends a reason and comment to the admins", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await sendMessage(page, "Say something wrong");
    await expect(replies(page)).toHaveCount(1);
    await expectConversationUrl(page);
    await replies(page).getByRole("button", { name: "Report" }).click();
    const dialog = page.getByRole("dialog", { name: "Report this reply" });
    await dialog.getByRole("radio", { name: "Harmful or unsafe" }).check();
    await dialog.getByRole("textbox", { name: "Comment (optional)" }).fill("This is not right.");
    const response = page.waitForResponse("**/api/reports");
    await dialog.getByRole("button", { name: "Send report" }).click();
    expect((await response).status()).toBe(201);
    await expect(dialog.getByText("Your report was sent to the admins.")).toBeVisible();
  });
});
