import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { conversationList, expectNoneWriting, replies, sendMessage } from "./assistant-support";
import { env, expect, signIn, test } from "./fixtures";

/**
 * Organising the list (pins, archive, folders, several chats at once, the row's "⋯" menu) and
 * temporary chats (docs/decisions/085), as a person sees them at 1280×800 and 390×844.
 */

const SIZES = [
  { name: "1280×800", viewport: { width: 1280, height: 800 }, phone: false },
  { name: "390×844", viewport: { width: 390, height: 844 }, phone: true },
] as const;

/** Makes a chat through the chat endpoint, as the page does (quicker than typing it). */
async function makeChat(page: Page, text: string): Promise<string> {
  const layout = await page.request.get("/nuvara?_data=routes%2Fnuvara");
  const { models } = (await layout.json()) as { models: Array<{ id: string }> };
  const id = randomUUID();
  const response = await page.request.post("/api/chat", {
    headers: { Origin: env.baseURL },
    data: {
      conversationId: id,
      create: true,
      message: { id: randomUUID(), role: "user", parts: [{ type: "text", text }] },
      model: models[0].id,
    },
  });
  expect(response.status()).toBe(200);
  await response.body(); // the whole reply: stored once it ends
  return id;
}

/** The list, opened as a drawer on a phone. */
async function openList(page: Page, phone: boolean) {
  const list = conversationList(page);
  // The drawer stays open while only the query changes (the Archived view, a search).
  if (phone && !(await list.isVisible()))
    await page.getByRole("button", { name: "Conversations", exact: true }).click();
  await expect(list).toBeVisible();
  return list;
}

async function rowMenu(page: Page, title: string) {
  const list = conversationList(page);
  await list.getByRole("button", { name: `Actions for “${title}”` }).click();
  return list.getByRole("menu", { name: `Actions for “${title}”` });
}

for (const size of SIZES) {
  test.describe(`organising chats at ${size.name}`, () => {
    test.use({ viewport: size.viewport });
    // Several chats made and a dozen steps each: a busy 2-core machine needs more than the default.
    test.describe.configure({ timeout: 60_000 });

    test("the row's ⋯ menu works from the keyboard; Escape closes it and cancels a rename", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await makeChat(page, "Keyboard chat");
      await expectNoneWriting(page);
      await page.goto("/nuvara");
      const list = await openList(page, size.phone);
      const row = list.getByRole("listitem").filter({ hasText: "Keyboard chat" });
      // Only the ⋯ button on the row: no rename or delete icons.
      await expect(row.getByRole("button")).toHaveCount(1);
      const trigger = row.getByRole("button", { name: "Actions for “Keyboard chat”" });
      await expect(trigger).toHaveAttribute("aria-haspopup", "menu");

      await trigger.focus();
      await page.keyboard.press("Enter");
      const menu = list.getByRole("menu", { name: "Actions for “Keyboard chat”" });
      await expect(menu.getByRole("menuitem")).toHaveText([
        "Rename",
        "Pin",
        "Move to folder…",
        "Move to project…",
        "Archive",
        "Delete",
      ]);
      await expect(menu.getByRole("menuitem", { name: "Rename" })).toBeFocused();
      await expect(trigger).toHaveAttribute("aria-expanded", "true");
      await page.keyboard.press("ArrowDown");
      await expect(menu.getByRole("menuitem", { name: "Pin" })).toBeFocused();
      await page.keyboard.press("End");
      await expect(menu.getByRole("menuitem", { name: "Delete" })).toBeFocused();
      await page.keyboard.press("ArrowDown");
      await expect(menu.getByRole("menuitem", { name: "Rename" })).toBeFocused();
      await expectNoAxeViolations(page, `row menu open, ${size.name}`);
      await page.keyboard.press("Escape");
      await expect(menu).toBeHidden();
      await expect(trigger).toBeFocused();
      // On a phone, Escape in the menu closed only the menu, not the drawer.
      await expect(list).toBeVisible();

      await page.keyboard.press("Enter");
      await page.keyboard.press("Enter"); // Rename
      const box = list.getByRole("textbox", { name: "New title" });
      await expect(box).toBeFocused();
      await box.fill("Half-typed title");
      await page.keyboard.press("Escape");
      await expect(box).toBeHidden();
      await expect(list.getByRole("link", { name: "Keyboard chat" })).toBeVisible();
      await expect(list).toBeVisible();
      await expect(trigger).toBeFocused();
    });

    test("pin, archive, restore and delete from the archived view; search still finds an archived chat", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await makeChat(page, "Pin me please");
      await makeChat(page, "Archive me please");
      await makeChat(page, "Newest chat");
      await expectNoneWriting(page);
      await page.goto("/nuvara");
      let list = await openList(page, size.phone);

      await (await rowMenu(page, "Pin me please")).getByRole("menuitem", { name: "Pin" }).click();
      const pinned = list.getByRole("region", { name: "Pinned" });
      await expect(pinned.getByRole("link")).toHaveText(["Pin me please"]);
      await expect(list.getByRole("heading", { level: 2 }).first()).toHaveText("Pinned");
      await expect(list.getByRole("region", { name: "Today" }).getByRole("link")).toHaveText([
        "Newest chat",
        "Archive me please",
      ]);

      await (await rowMenu(page, "Archive me please")).getByRole("menuitem", { name: "Archive" }).click();
      await expect(list.getByRole("link", { name: "Archive me please" })).toHaveCount(0);

      await list.getByRole("searchbox", { name: "Search conversations" }).fill("archive me");
      await expect(list.getByRole("link", { name: "Archive me please archived" })).toBeVisible();
      await list.getByRole("searchbox", { name: "Search conversations" }).fill("");
      await expect(list.getByRole("link", { name: "Newest chat" })).toBeVisible();

      await list.getByRole("link", { name: "Archived chats" }).click();
      await expect(page).toHaveURL(/view=archived/);
      list = await openList(page, size.phone);
      await expect(list.getByRole("heading", { name: "Archived chats" })).toBeVisible();
      await expect(list.getByRole("link", { name: /Archive me please/ })).toBeVisible();
      await expect(list.getByRole("link", { name: /Newest chat/ })).toHaveCount(0);
      await expectNoAxeViolations(page, `archived view, ${size.name}`);
      const menu = await rowMenu(page, "Archive me please");
      await expect(menu.getByRole("menuitem")).toHaveText(["Restore", "Delete"]);
      await menu.getByRole("menuitem", { name: "Restore" }).click();
      await expect(list.getByText("No archived chats.")).toBeVisible();

      await list.getByRole("link", { name: "Back to chats" }).click();
      list = await openList(page, size.phone);
      await expect(list.getByRole("link", { name: "Archive me please" })).toBeVisible();
      await (await rowMenu(page, "Pin me please")).getByRole("menuitem", { name: "Unpin" }).click();
      await expect(list.getByRole("region", { name: "Pinned" })).toHaveCount(0);

      // Deleting from the archived view asks first.
      await (await rowMenu(page, "Newest chat")).getByRole("menuitem", { name: "Archive" }).click();
      await expect(list.getByRole("link", { name: "Newest chat" })).toHaveCount(0);
      await list.getByRole("link", { name: "Archived chats" }).click();
      list = await openList(page, size.phone);
      await (await rowMenu(page, "Newest chat")).getByRole("menuitem", { name: "Delete" }).click();
      const dialog = page.getByRole("dialog", { name: "Delete this conversation?" });
      await dialog.getByRole("button", { name: "Delete" }).click();
      await expect(list.getByText("No archived chats.")).toBeVisible();
    });

    test("folders: made, filled from the row's menu, collapsed, renamed, deleted with their chats kept", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await makeChat(page, "Budget for spring");
      await makeChat(page, "Loose chat");
      await expectNoneWriting(page);
      await page.goto("/nuvara");
      const list = await openList(page, size.phone);

      await list.getByRole("button", { name: "New folder" }).click();
      const naming = page.getByRole("dialog", { name: "New folder" });
      await naming.getByRole("button", { name: "Create folder" }).click(); // empty: the browser asks for a name
      await naming.getByRole("textbox", { name: "Folder name" }).fill("x".repeat(60));
      await naming.getByRole("textbox", { name: "Folder name" }).fill("Work");
      await naming.getByRole("button", { name: "Create folder" }).click();
      await expect(naming).toBeHidden();
      const folder = list.getByRole("region", { name: "Folder Work" });
      await expect(folder).toBeVisible();

      await (await rowMenu(page, "Budget for spring")).getByRole("menuitem", { name: "Move to folder…" }).click();
      const move = page.getByRole("dialog", { name: "Move to folder" });
      await move.getByRole("combobox", { name: /Folder for/ }).selectOption({ label: "Work" });
      await expectNoAxeViolations(page, `move dialog, ${size.name}`);
      await move.getByRole("button", { name: "Move" }).click();
      await expect(move).toBeHidden();
      await expect(folder.getByRole("link")).toHaveText(["Budget for spring"]);
      await expect(list.getByRole("region", { name: "Today" }).getByRole("link")).toHaveText(["Loose chat"]);

      const toggle = folder.getByRole("button", { name: "Work", exact: true });
      await expect(toggle).toHaveAttribute("aria-expanded", "true");
      await toggle.click();
      await expect(toggle).toHaveAttribute("aria-expanded", "false");
      await expect(folder.getByRole("link")).toHaveCount(0);
      // Closed it stays, on this browser, after a reload.
      await page.reload();
      await openList(page, size.phone);
      await expect(toggle).toHaveAttribute("aria-expanded", "false");
      await expect(folder.getByRole("link")).toHaveCount(0);
      await toggle.click();
      await expect(folder.getByRole("link")).toHaveText(["Budget for spring"]);

      await folder.getByRole("button", { name: "Actions for folder “Work”" }).click();
      await folder.getByRole("menuitem", { name: "Rename folder" }).click();
      const renaming = page.getByRole("dialog", { name: "Rename folder" });
      await renaming.getByRole("textbox", { name: "Folder name" }).fill("Projects");
      await renaming.getByRole("button", { name: "Rename" }).click();
      const projects = list.getByRole("region", { name: "Folder Projects" });
      await expect(projects.getByRole("link")).toHaveText(["Budget for spring"]);

      await projects.getByRole("button", { name: "Actions for folder “Projects”" }).click();
      await projects.getByRole("menuitem", { name: "Delete folder" }).click();
      const confirm = page.getByRole("dialog", { name: "Delete this folder?" });
      await expect(confirm).toContainText("Its chat is kept: it moves back to your list.");
      await confirm.getByRole("button", { name: "Delete folder" }).click();
      await expect(projects).toHaveCount(0);
      await expect(list.getByRole("region", { name: "Today" }).getByRole("link")).toHaveText([
        "Loose chat",
        "Budget for spring",
      ]);
    });

    test("Select mode archives or deletes the ticked chats; delete asks with the count", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      for (const title of ["First pick", "Second pick", "Third pick", "Kept chat"]) await makeChat(page, title);
      await expectNoneWriting(page);
      await page.goto("/nuvara");
      const list = await openList(page, size.phone);

      await list.getByRole("button", { name: "Select" }).click();
      const bar = list.getByRole("group", { name: "Selected chats" });
      await expect(bar).toContainText("0 selected");
      await expect(bar.getByRole("button", { name: "Archive" })).toBeDisabled();
      await list.getByRole("checkbox", { name: "Select “First pick”" }).check();
      await list.getByRole("checkbox", { name: "Select “Second pick”" }).check();
      await expect(bar).toContainText("2 selected");
      await expectNoAxeViolations(page, `select mode, ${size.name}`);
      await bar.getByRole("button", { name: "Archive" }).click();
      await expect(list.getByRole("link", { name: "First pick" })).toHaveCount(0);
      await expect(list.getByRole("link", { name: "Second pick" })).toHaveCount(0);
      await expect(bar).toBeHidden();

      await list.getByRole("button", { name: "Select" }).click();
      await list.getByRole("checkbox", { name: "Select “Third pick”" }).check();
      await list.getByRole("checkbox", { name: "Select “Kept chat”" }).check();
      await list.getByRole("checkbox", { name: "Select “Kept chat”" }).uncheck();
      await bar.getByRole("button", { name: "Delete" }).click();
      const dialog = page.getByRole("dialog", { name: "Delete 1 chat?" });
      await expect(dialog).toContainText("The 1 selected chat and all its messages will be deleted.");
      await dialog.getByRole("button", { name: "Delete 1 chat" }).click();
      await expect(dialog).toBeHidden();
      await expect(list.getByRole("link", { name: "Third pick" })).toHaveCount(0);
      await expect(list.getByRole("link", { name: "Kept chat" })).toBeVisible();

      await list.getByRole("link", { name: "Archived chats" }).click();
      const archived = await openList(page, size.phone);
      await archived.getByRole("button", { name: "Select" }).click();
      await archived.getByRole("checkbox", { name: "Select “First pick”" }).check();
      await archived.getByRole("checkbox", { name: "Select “Second pick”" }).check();
      await archived.getByRole("group", { name: "Selected chats" }).getByRole("button", { name: "Delete" }).click();
      await page
        .getByRole("dialog", { name: "Delete 2 chats?" })
        .getByRole("button", { name: "Delete 2 chats" })
        .click();
      await expect(archived.getByText("No archived chats.")).toBeVisible();
    });

    test("a temporary chat is marked, never listed, not exportable or shareable, and deleted when left", async ({
      page,
      newAccount,
    }) => {
      await signIn(page, await newAccount());
      await page.goto("/nuvara");
      const toggle = page.getByRole("switch", { name: "Temporary" });
      await expect(toggle).toHaveAttribute("aria-checked", "false");
      await page.getByRole("textbox", { name: "Message" }).fill("Typed before switching");
      await toggle.click();
      await expect(page).toHaveURL(/\/nuvara\?temporary=1$/);
      await expect(toggle).toHaveAttribute("aria-checked", "true");
      await expect(page.getByText("Temporary chat — not saved to your history.")).toBeVisible();
      await expect(page.getByRole("heading", { level: 2, name: "Temporary chat" })).toBeVisible();
      // What was typed stays.
      await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("Typed before switching");

      const sent = page.waitForRequest((request) => request.url().endsWith("/api/chat"));
      await sendMessage(page, "A secret question");
      const body = (await sent).postDataJSON() as { conversationId: string; temporary?: boolean };
      expect(body.temporary).toBe(true);
      await expect(replies(page)).toHaveText([/You said: A secret question/]);
      await expectNoneWriting(page);
      await expect(page).toHaveURL(/\/nuvara\?temporary=1$/);
      await expect(page.getByRole("link", { name: "Export" })).toHaveCount(0);
      await expect(page.getByRole("button", { name: "Share" })).toHaveCount(0);
      await expectNoAxeViolations(page, `temporary chat, ${size.name}`);

      const conversation = `/nuvara/${body.conversationId}?_data=${encodeURIComponent("routes/nuvara.$conversationId")}`;
      expect((await page.request.get(conversation)).status()).toBe(200);
      const layout = await (await page.request.get("/nuvara?_data=routes%2Fnuvara&q=secret")).json();
      expect(layout.conversations).toEqual([]);
      const list = await openList(page, size.phone);
      await expect(list.getByText("No conversations yet.")).toBeVisible();
      if (size.phone) await list.getByRole("button", { name: "Close conversations" }).click();

      // Switching back to an ordinary chat leaves the temporary one: it is deleted.
      await page.getByRole("switch", { name: "Temporary" }).click();
      await expect(page).toHaveURL(/\/nuvara$/);
      await expect(page.getByText("Temporary chat — not saved to your history.")).toHaveCount(0);
      await expect.poll(async () => (await page.request.get(conversation)).status()).toBe(404);
    });
  });
}

test("closing the tab of a temporary chat deletes it", async ({ page, newAccount }) => {
  await signIn(page, await newAccount());
  const tab = await page.context().newPage();
  await tab.goto("/nuvara?temporary=1");
  const sent = tab.waitForRequest((request) => request.url().endsWith("/api/chat"));
  await sendMessage(tab, "Gone when the tab closes");
  const { conversationId } = (await sent).postDataJSON() as { conversationId: string };
  await expect(replies(tab)).toHaveText([/You said: Gone when the tab closes/]);
  await expectNoneWriting(page);
  const conversation = `/nuvara/${conversationId}?_data=${encodeURIComponent("routes/nuvara.$conversationId")}`;
  expect((await page.request.get(conversation)).status()).toBe(200);
  await tab.close({ runBeforeUnload: true });
  await expect.poll(async () => (await page.request.get(conversation)).status()).toBe(404);
});

test("a chat dragged onto a folder is filed there (desktop)", async ({ page, newAccount }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, await newAccount());
  await makeChat(page, "Drag me");
  await page.request.post("/nuvara", {
    headers: { Origin: env.baseURL },
    form: { intent: "folder-create", name: "Inbox zero" },
  });
  await expectNoneWriting(page);
  await page.goto("/nuvara");
  const list = conversationList(page);
  const folder = list.getByRole("region", { name: "Folder Inbox zero" });
  await expect(folder).toBeVisible();
  await list.getByRole("listitem").filter({ hasText: "Drag me" }).dragTo(folder.getByRole("heading"));
  await expect(folder.getByRole("link")).toHaveText(["Drag me"]);
});
