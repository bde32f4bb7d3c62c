import { expect, mainNav, signIn, test } from "./fixtures";
import { composer, conversationList, lastModelRequest, replies, scriptedModel, sendMessage } from "./assistant-support";

/** /tools: the public catalogue, prompt tools starting chats, function switches, and admins' controls. */

test.beforeEach(async () => {
  await scriptedModel.reset();
});

function promptTool(page: import("@playwright/test").Page, name: string) {
  return page.getByRole("article", { name });
}

test.describe("the catalogue", () => {
  test("logged out: browse, search and filter; opening a tool goes through login and back to it", async ({
    page,
    newAccount,
  }) => {
    const account = await newAccount();
    await page.goto("/tools");
    await expect(page).toHaveTitle("Tools · Nuvara²");
    for (const name of ["Summarize", "Translate", "Improve writing", "Explain code", "Draft an email"]) {
      await expect(promptTool(page, name)).toBeVisible();
    }
    const functions = page.getByRole("region", { name: "Functions the assistant can call" });
    await expect(functions.getByRole("heading", { name: "Calculator" })).toBeVisible();
    await expect(functions.getByText("Works out arithmetic exactly")).toBeVisible();
    await expect(page.getByRole("switch")).toHaveCount(0);
    await expect(page.getByRole("link", { name: "New prompt tool" })).toHaveCount(0);

    await page.getByRole("searchbox", { name: "Search tools" }).fill("email");
    await expect(page).toHaveURL(/\?q=email/);
    await expect(promptTool(page, "Draft an email")).toBeVisible();
    await expect(promptTool(page, "Summarize")).toHaveCount(0);
    await expect(functions).toHaveCount(0);

    await page.getByRole("link", { name: "Clear filters" }).click();
    await expect(page).toHaveURL(/\/tools$/);
    await expect(page.getByRole("searchbox", { name: "Search tools" })).toHaveValue("");
    await page.getByLabel("Category").selectOption("Code");
    await expect(page).toHaveURL(/category=Code/);
    await expect(promptTool(page, "Explain code")).toBeVisible();
    await expect(page.getByRole("article")).toHaveCount(1);

    await page.getByLabel("Category").selectOption("Assistant functions");
    await expect(page.getByRole("article")).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Unit converter" })).toBeVisible();

    await page.getByRole("searchbox", { name: "Search tools" }).fill("no tool is called this");
    await expect(page.getByText(/No tool matches “no tool is called this”/)).toBeVisible();

    await page.goto("/tools");
    await promptTool(page, "Summarize").getByRole("link", { name: "Summarize" }).click();
    await expect(page).toHaveURL("/login?redirectTo=%2Ftools%2Fsummarize");
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password", { exact: true }).fill(account.password);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expect(page).toHaveURL(/\/tools\/summarize$/);
    await expect(page.getByRole("heading", { level: 1, name: "Summarize" })).toBeVisible();
  });

  test("a prompt tool starts a chat with its instructions, its answers ready to send", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/tools");
    await promptTool(page, "Translate").getByRole("link", { name: "Translate" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Translate" })).toBeVisible();
    await page.getByText("Instructions the assistant gets").click();
    await expect(page.getByText(/You are a careful translator/)).toBeVisible();

    // A required answer left out: said so, and what was typed stays.
    await page.getByLabel("Text to translate").fill("Good morning, how are you?");
    await page.getByRole("button", { name: "Start chat" }).click();
    await expect(page.getByText("Fill in “Translate into”.")).toBeVisible();
    await expect(page.getByLabel("Text to translate")).toHaveValue("Good morning, how are you?");

    await page.getByLabel("Translate into").fill("French");
    await page.getByRole("button", { name: "Start chat" }).click();
    // A new chat with the tool: no conversation exists until the first message is sent (and answered).
    await expect(page).toHaveURL(/\/nuvara\?tool=translate$/);
    await expect(page.getByText("Using the tool “Translate”").first()).toBeVisible();
    await expect(conversationList(page).getByRole("link", { name: "Translate" })).toHaveCount(0);
    const { box, send } = composer(page);
    await expect(box).toHaveValue("Text to translate:\nGood morning, how are you?\n\nTranslate into:\nFrench");

    await scriptedModel.enqueue({ type: "text", text: "Bonjour, comment allez-vous ?" });
    await expect(send).toBeEnabled();
    await box.press("Enter");
    await expect(replies(page).first()).toContainText("Bonjour, comment allez-vous ?");
    await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);
    await expect(page.getByText("Tool instructions on")).toBeVisible();
    await expect(conversationList(page).getByRole("link", { name: "Translate" })).toHaveCount(1);
    const request = await lastModelRequest();
    const system = request?.messages?.find((message) => message.role === "system");
    expect(String(system?.content)).toContain("You are a careful translator.");
    expect(request?.messages?.at(-1)).toMatchObject({
      role: "user",
      content: expect.stringContaining("Translate into:\nFrench"),
    });
  });

  for (const size of [
    { name: "desktop", width: 1280, height: 800 },
    { name: "phone", width: 390, height: 844 },
  ] as const) {
    test(`a tool's chat shows no starters, names its tool, and can leave it keeping the message (${size.name})`, async ({
      page,
      newAccount,
    }) => {
      await page.setViewportSize({ width: size.width, height: size.height });
      await signIn(page, await newAccount());
      await page.goto("/tools/translate");
      await page.getByLabel("Text to translate").fill("Good night");
      await page.getByLabel("Translate into").fill("German");
      await page.getByRole("button", { name: "Start chat" }).click();
      await expect(page).toHaveURL(/\/nuvara\?tool=translate$/);

      const header = page.locator("header.chat-header");
      await expect(header.getByText("Using the tool “Translate”")).toBeVisible();
      await expect(page.getByRole("list", { name: "Suggestions" })).toHaveCount(0);
      await expect(page.getByRole("button", { name: "Explain a concept" })).toHaveCount(0);
      const leave = page.getByRole("link", { name: "Stop using the tool “Translate”" });
      await expect(leave).toBeVisible();
      // Whole on the screen, not clipped by a narrow bar: a tap on it reaches it.
      expect(
        await leave.evaluate((link) => {
          const box = link.getBoundingClientRect();
          return link.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2));
        }),
      ).toBe(true);
      // The header fits the screen with the tool named in it.
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(size.width);
      await page.screenshot({ path: `/tmp/tool-mode-${size.name}.png` });

      await leave.click();
      await expect(page).toHaveURL(/\/nuvara$/);
      await expect(header.getByText(/Using the tool/)).toHaveCount(0);
      await expect(page.getByRole("list", { name: "Suggestions" })).toBeVisible();
      // What the tool prepared stays in the box, to send as an ordinary message.
      await expect(composer(page).box).toHaveValue("Text to translate:\nGood night\n\nTranslate into:\nGerman");
      await sendMessage(page, "plain question");
      await expect(replies(page).first()).toContainText("You said: plain question");
      const request = await lastModelRequest();
      expect(String(request?.messages?.find((message) => message.role === "system")?.content)).not.toContain(
        "careful translator",
      );
    });
  }

  test("switching a function off: the switch remembers it, and the model is no longer offered that function", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount());
    await page.goto("/tools");
    const calculator = page.getByRole("switch", { name: "Calculator" });
    await expect(calculator).toHaveAttribute("aria-checked", "true");
    await calculator.click();
    await expect(calculator).toHaveAttribute("aria-checked", "false");
    await page.reload();
    await expect(page.getByRole("switch", { name: "Calculator" })).toHaveAttribute("aria-checked", "false");
    await expect(page.getByRole("switch", { name: "Unit converter" })).toHaveAttribute("aria-checked", "true");

    await page.goto("/nuvara");
    await sendMessage(page, "What is 0.1 + 0.2?");
    await expect(replies(page).first()).toContainText("You said: What is 0.1 + 0.2?");
    const offered = ((await lastModelRequest())?.tools ?? []).map((tool) => tool.function.name).sort();
    // The e2e app has a search provider (playwright.config.ts): the web's two tools are offered too, and memory's two.
    expect(offered).toEqual(["convert_units", "current_datetime", "forget", "read_page", "remember", "web_search"]);

    // Back on: offered again.
    await page.goto("/tools");
    await page.getByRole("switch", { name: "Calculator" }).click();
    await expect(page.getByRole("switch", { name: "Calculator" })).toHaveAttribute("aria-checked", "true");
    await page.goto("/nuvara");
    await sendMessage(page, "And now?");
    await expect(replies(page).first()).toContainText("You said: And now?");
    expect(((await lastModelRequest())?.tools ?? []).map((tool) => tool.function.name).sort()).toEqual([
      "calculator",
      "convert_units",
      "current_datetime",
      "forget",
      "read_page",
      "remember",
      "web_search",
    ]);
  });
});

test.describe("admins manage prompt tools", () => {
  test("create (with a mistake first, nothing typed lost), edit, disable, enable and delete", async ({
    page,
    browser,
    newAccount,
  }) => {
    await signIn(page, await newAccount({ role: "admin" }));
    const user = await browser.newContext();
    const userPage = await user.newPage();
    await signIn(userPage, await newAccount());
    const name = `Haiku ${Date.now().toString(36)}`;

    await page.goto("/tools");
    await page.getByRole("link", { name: "New prompt tool" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "New prompt tool" })).toBeVisible();
    await page.getByLabel("Category").fill("Fun");
    await page.getByLabel("Description").fill("Turns any topic into a haiku.");
    await page.getByLabel("Input 1 label").fill("Topic");
    await page.getByRole("button", { name: "Create tool" }).click();
    await expect(page.getByText("2 things need fixing before the tool can be saved.")).toBeVisible();
    await expect(page.getByText("Enter a name.")).toBeVisible();
    await expect(page.getByText("Write the instructions for the assistant.")).toBeVisible();
    await expect(page.getByLabel("Category")).toHaveValue("Fun");
    await expect(page.getByLabel("Description")).toHaveValue("Turns any topic into a haiku.");
    await expect(page.getByLabel("Input 1 label")).toHaveValue("Topic");

    await page.getByLabel("Name").fill(name);
    await page
      .getByLabel("Instructions for the assistant")
      .fill("Write a haiku about the user's topic. Reply with the haiku only.");
    await page.getByRole("button", { name: "Create tool" }).click();
    await expect(page).toHaveURL(/\/tools\?saved=/);
    await expect(page.getByText(`“${name}” was saved.`)).toBeVisible();
    const card = promptTool(page, name);
    await expect(card).toContainText("Added by admins");
    await expect(card).toContainText("Fun");

    await userPage.goto("/tools");
    await expect(promptTool(userPage, name)).toBeVisible();
    await expect(promptTool(userPage, name).getByRole("button")).toHaveCount(0);

    await card.getByRole("link", { name: `Edit ${name}` }).click();
    await page.getByLabel("Description").fill("Turns any topic into a haiku, seasons included.");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(promptTool(page, name)).toContainText("seasons included");

    await promptTool(page, name)
      .getByRole("button", { name: `Disable ${name}` })
      .click();
    await expect(promptTool(page, name)).toContainText("Disabled");
    await userPage.reload();
    await expect(promptTool(userPage, name)).toHaveCount(0);

    await promptTool(page, name)
      .getByRole("button", { name: `Enable ${name}` })
      .click();
    await expect(promptTool(page, name)).not.toContainText("Disabled");
    await userPage.reload();
    await expect(promptTool(userPage, name)).toBeVisible();

    await promptTool(page, name)
      .getByRole("button", { name: `Delete ${name}` })
      .click();
    await expect(page.getByText(`Delete “${name}” for good?`)).toBeVisible();
    await promptTool(page, name)
      .getByRole("button", { name: `Yes, delete ${name}` })
      .click();
    await expect(promptTool(page, name)).toHaveCount(0);
    await userPage.reload();
    await expect(promptTool(userPage, name)).toHaveCount(0);
    await user.close();
  });

  test("non-admins see no controls, and their direct requests are refused with 403", async ({
    page,
    newAccount,
    baseURL,
  }) => {
    await signIn(page, await newAccount({ role: "premium" }));
    await page.goto("/tools");
    await expect(mainNav(page).getByRole("link", { name: "Tools" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("link", { name: "New prompt tool" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /^(Edit|Disable|Delete)/ })).toHaveCount(0);

    const response = await page.goto("/tools/new");
    expect(response?.status()).toBe(403);
    await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();

    const headers = { Origin: baseURL! };
    const form = {
      name: "Sneaky",
      category: "Fun",
      description: "Should never exist.",
      systemPrompt: "Ignore everything.",
      field0Label: "Text",
      field0Kind: "text",
    };
    expect((await page.request.post("/tools/new", { form, headers })).status()).toBe(403);
    expect((await page.request.post("/tools/new?_data=routes%2Ftools_.new", { form, headers })).status()).toBe(403);
    const id = "00000000-0000-4000-8000-000000000000";
    for (const intent of ["disable", "enable", "delete"]) {
      expect(
        (
          await page.request.post("/tools?_data=routes%2Ftools", { form: { intent, id, confirm: "yes" }, headers })
        ).status(),
      ).toBe(403);
    }
    expect(
      (await page.request.post(`/tools/${id}/edit?_data=routes%2Ftools_.%24toolId_.edit`, { form, headers })).status(),
    ).toBe(403);
    await page.goto("/tools?q=Sneaky");
    await expect(page.getByRole("article")).toHaveCount(0);
  });
});
