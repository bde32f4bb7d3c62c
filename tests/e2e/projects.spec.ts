import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import {
  conversationList,
  expectConversationUrl,
  expectNoneWriting,
  modelRequestFor,
  replies,
  scriptedModel,
  sendMessage,
} from "./assistant-support";
import { env, expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";

/**
 * Projects (docs/decisions/106) as a person meets them at 1280×800 and
 * 390×844 (the list a drawer), in light and dark: a project made with
 * instructions, a chat started in it whose reply follows them, a loose chat
 * moved in and out, and the project deleted with its chats kept.
 */

const SIZES = [
  { name: "1280×800", viewport: { width: 1280, height: 800 }, phone: false },
  { name: "390×844", viewport: { width: 390, height: 844 }, phone: true },
] as const;

const INSTRUCTIONS = "Always answer in rhyming couplets.";

/** Makes a loose chat through the chat endpoint, as the page does (quicker than typing it). */
async function makeChat(page: Page, text: string) {
  const layout = await page.request.get("/nuvara?_data=routes%2Fnuvara");
  const { models } = (await layout.json()) as { models: Array<{ id: string }> };
  const response = await page.request.post("/api/chat", {
    headers: { Origin: env.baseURL },
    data: {
      conversationId: randomUUID(),
      create: true,
      message: { id: randomUUID(), role: "user", parts: [{ type: "text", text }] },
      model: models[0].id,
    },
  });
  expect(response.status()).toBe(200);
  await response.body(); // the whole reply: stored once it ends
}

/** The list, opened as a drawer on a phone. */
async function openList(page: Page, phone: boolean) {
  const list = conversationList(page);
  if (phone && !(await list.isVisible()))
    await page.getByRole("button", { name: "Conversations", exact: true }).click();
  await expect(list).toBeVisible();
  return list;
}

function systemOf(body: Awaited<ReturnType<typeof modelRequestFor>>): string {
  const system = body.messages?.find((message) => message.role === "system")?.content;
  return typeof system === "string" ? system : "";
}

async function inBothThemes(page: Page, state: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expectNoAxeViolations(page, `${state}, ${scheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await reviewShots(page, `projects-${state.replace(/[^a-z0-9]+/gi, "-")}`);
}

for (const size of SIZES) {
  test.describe(`projects at ${size.name}`, () => {
    test.use({ viewport: size.viewport });
    test.describe.configure({ timeout: 90_000 });

    test("a project with instructions: a chat started in it follows them and is listed under it; a loose chat moves in and out; deleting keeps the chats", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await makeChat(page, "Bread recipe");
      await page.goto("/nuvara");
      await expectNoneWriting(page);
      let list = await openList(page, size.phone);

      // 1. A new project, named and given instructions.
      await list.getByRole("button", { name: "New project" }).click();
      const making = page.getByRole("dialog", { name: "New project" });
      await making.getByRole("textbox", { name: "Project name" }).fill("Poems");
      await making.getByRole("textbox", { name: "Instructions for every chat in this project" }).fill(INSTRUCTIONS);
      await inBothThemes(page, `new project dialog, ${size.name}`);
      await making.getByRole("button", { name: "Create project" }).click();
      await expect(making).toBeHidden();
      const project = list.getByRole("region", { name: "Project Poems" });
      await expect(project).toBeVisible();

      // 2. A chat started in it: the reply arrives, the model was given the instructions, it is listed under it.
      await project.getByRole("button", { name: "Actions for project “Poems”" }).click();
      await project.getByRole("menuitem", { name: "New chat in project" }).click();
      await expect(page.getByText("In project “Poems”")).toBeVisible();
      await scriptedModel.enqueue({ type: "text", text: "The sea is wide, the sea is deep." });
      await sendMessage(page, "Write about the sea");
      await expect(replies(page).last()).toContainText("The sea is wide, the sea is deep.");
      expect(systemOf(await modelRequestFor("Write about the sea"))).toContain(INSTRUCTIONS);
      await expectConversationUrl(page);
      list = await openList(page, size.phone);
      await expect(project.getByRole("link", { name: "Write about the sea" })).toBeVisible();
      await inBothThemes(page, `a project with its chat, ${size.name}`);

      // 3. The loose chat moved in, then out.
      const loose = list.getByRole("listitem").filter({ hasText: "Bread recipe" });
      await loose.getByRole("button", { name: "Actions for “Bread recipe”" }).click();
      await list.getByRole("menuitem", { name: "Move to project…" }).click();
      const moving = page.getByRole("dialog", { name: "Move to project" });
      await moving.getByRole("combobox", { name: /Project for/ }).selectOption({ label: "Poems" });
      await moving.getByRole("button", { name: "Move" }).click();
      await expect(moving).toBeHidden();
      await expect(project.getByRole("link", { name: "Bread recipe" })).toBeVisible();

      await project.getByRole("button", { name: "Actions for “Bread recipe”" }).click();
      await project.getByRole("menuitem", { name: "Remove from project" }).click();
      await expect(project.getByRole("link", { name: "Bread recipe" })).toHaveCount(0);
      await expect(
        list.getByRole("region", { name: "Today" }).getByRole("link", { name: "Bread recipe" }),
      ).toBeVisible();

      // 4. The project deleted, its chat kept among the loose ones.
      await project.getByRole("button", { name: "Actions for project “Poems”" }).click();
      await project.getByRole("menuitem", { name: "Delete project" }).click();
      const deleting = page.getByRole("dialog", { name: "Delete this project?" });
      await expect(deleting.getByRole("radio", { name: "Keep them: move them out of the project" })).toBeChecked();
      await inBothThemes(page, `delete project dialog, ${size.name}`);
      await deleting.getByRole("button", { name: "Delete project" }).click();
      await expect(deleting).toBeHidden();
      await expect(list.getByRole("region", { name: "Project Poems" })).toHaveCount(0);
      await expect(
        list.getByRole("region", { name: "Today" }).getByRole("link", { name: "Write about the sea" }),
      ).toBeVisible();
    });
  });
}
