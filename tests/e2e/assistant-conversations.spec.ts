import { expect, signIn, test } from "./fixtures";
import { conversationList, replies, scriptedModel, sendMessage, userMessages } from "./assistant-support";

test.beforeEach(async () => {
  await scriptedModel.reset();
});

/** Starts a conversation with one exchange and returns its URL. */
async function startConversation(page: import("@playwright/test").Page, text: string, reply?: string) {
  await page.goto("/nuvara");
  if (reply) await scriptedModel.enqueue({ type: "text", text: reply });
  await sendMessage(page, text);
  await expect(replies(page)).toHaveCount(1);
  await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);
  await expect(replies(page).getByRole("button", { name: "Regenerate" })).toBeVisible();
  return page.url();
}

test.describe("the conversation list", () => {
  test("lists conversations under Today, newest first, and searches titles and message text", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await startConversation(page, "Planning a trip to Lisbon", "Lisbon has great custard tarts.");
    await startConversation(page, "Help with my sourdough");
    // Live: both listed, neither still writing, with no reload.
    const list = conversationList(page);
    const today = list.getByRole("region", { name: "Today" });
    await expect(today.getByRole("link")).toHaveText(["Help with my sourdough", "Planning a trip to Lisbon"]);

    const search = list.getByRole("searchbox", { name: "Search conversations" });
    await search.fill("custard"); // only in a reply's text
    await expect(list.getByRole("link", { name: /Planning a trip/ })).toBeVisible();
    await expect(list.getByRole("link", { name: /sourdough/ })).toHaveCount(0);
    await search.fill("SOURDOUGH"); // a title, any case
    await expect(list.getByRole("link", { name: /sourdough/ })).toBeVisible();
    await expect(list.getByRole("link", { name: /Lisbon/ })).toHaveCount(0);
    await search.fill("100%_match");
    await expect(list.getByText("No conversations match “100%_match”.")).toBeVisible();
  });

  test("rename a conversation; the new title stays after a reload", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await startConversation(page, "Original title here");
    const list = conversationList(page);
    await list.getByRole("button", { name: "Actions for “Original title here”" }).click();
    await list.getByRole("menuitem", { name: "Rename" }).click();
    await list.getByRole("textbox", { name: "New title" }).fill("My renamed chat");
    await list.getByRole("button", { name: "Save" }).click();
    await expect(list.getByRole("link", { name: "My renamed chat" })).toBeVisible();
    await page.reload();
    await expect(list.getByRole("link", { name: "My renamed chat" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 2, name: "My renamed chat" })).toBeVisible();
  });

  test("delete asks for confirmation, then removes the conversation and its page", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    const url = await startConversation(page, "Delete me later");
    const list = conversationList(page);
    await list.getByRole("button", { name: "Actions for “Delete me later”" }).click();
    await list.getByRole("menuitem", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this conversation?" });
    await expect(dialog).toContainText("“Delete me later” and all its messages will be deleted.");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await expect(list.getByRole("link", { name: "Delete me later" })).toBeVisible();

    await list.getByRole("button", { name: "Actions for “Delete me later”" }).click();
    await list.getByRole("menuitem", { name: "Delete" }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await expect(page).toHaveURL(/\/nuvara$/);
    await expect(list.getByRole("link", { name: "Delete me later" })).toHaveCount(0);
    const gone = await page.goto(url);
    expect(gone?.status()).toBe(404);
  });

  test("another user's conversation is a 404 for the page, its actions, export and the chat endpoint", async ({
    browser,
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    const url = await startConversation(page, "Private thoughts");
    const id = url.split("/").pop()!;

    const other = await browser.newPage();
    await signIn(other, await newAccount());
    const response = await other.goto(url);
    expect(response?.status()).toBe(404);
    await expect(other.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(other.getByText("Private thoughts")).toHaveCount(0);

    const headers = { Origin: new URL(url).origin };
    const rename = await other.request.post(`/nuvara/${id}?_data=routes%2Fnuvara.%24conversationId`, {
      form: { intent: "rename", title: "Taken over" },
      headers,
    });
    expect(rename.status()).toBe(404);
    const remove = await other.request.post(`/nuvara/${id}?_data=routes%2Fnuvara.%24conversationId`, {
      form: { intent: "delete" },
      headers,
    });
    expect(remove.status()).toBe(404);
    expect((await other.request.get(`/api/conversations/${id}/markdown`)).status()).toBe(404);
    const chat = await other.request.post("/api/chat", {
      headers,
      data: {
        conversationId: id,
        message: { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: "hi" }] },
        model: "test-model",
      },
    });
    expect(chat.status()).toBe(404);
    await other.close();

    // The owner's conversation is untouched.
    await page.reload();
    await expect(userMessages(page)).toHaveText([/Private thoughts/]);
    await expect(conversationList(page).getByRole("link", { name: "Private thoughts" })).toBeVisible();
  });
});
