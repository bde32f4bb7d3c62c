import { expectNoAxeViolations } from "./a11y";
import { env, expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";
import { expectConversationUrl, modelRequestFor, replies, scriptedModel, sendMessage } from "./assistant-support";

/**
 * Memory across chats (docs/decisions/103), as a user meets it: a reply
 * saves a fact and says so, a later chat's reply says it used it, and the
 * memory page lists it, edits it, deletes it and turns memory off; an admin
 * switches memory off for a role (docs/decisions/105) and its users' page says so.
 */

const FACT = "Prefers metric units.";

function systemOf(body: Awaited<ReturnType<typeof modelRequestFor>>): string {
  const system = body.messages?.find((message) => message.role === "system")?.content;
  return typeof system === "string" ? system : "";
}

for (const { name, viewport } of [
  { name: "1280", viewport: { width: 1280, height: 800 } },
  { name: "390", viewport: { width: 390, height: 844 } },
]) {
  test(`a reply saves a memory, a later chat uses it, and the memory page edits, deletes and turns it off (${name})`, async ({
    page,
    newAccount,
  }) => {
    // Two chats and every change on the memory page, with axe on three states.
    test.setTimeout(90_000);
    await page.setViewportSize(viewport);
    await signIn(page, await newAccount());
    await page.goto("/nuvara");

    // 1. The model saves a fact: the reply says so, with a way to manage memories.
    await scriptedModel.enqueue(
      { type: "tool-calls", calls: [{ name: "remember", arguments: { fact: FACT } }] },
      { type: "text", text: "Got it: metric from now on." },
    );
    await sendMessage(page, "Please remember that I use metric units.");
    const saving = replies(page).last();
    await expect(saving).toContainText("Got it: metric from now on.");
    await expect(saving.getByText(`Saved to memory: “${FACT}”`)).toBeVisible();
    await expect(saving.getByRole("link", { name: "Manage memories" })).toHaveAttribute("href", "/dashboard/memory");
    await expectConversationUrl(page);

    // 2. A new chat is given it, and its reply says it used one memory.
    await page.goto("/nuvara");
    await scriptedModel.enqueue({ type: "text", text: "A marathon is 42.195 km." });
    await sendMessage(page, "How long is a marathon?");
    const using = replies(page).last();
    await expect(using).toContainText("A marathon is 42.195 km.");
    expect(systemOf(await modelRequestFor("How long is a marathon?"))).toContain(`- ${FACT}`);
    // Once the chat has its own address: the page is not drawn again under the click.
    await expectConversationUrl(page);
    await expect(using.getByRole("button", { name: "Copy reply" })).toBeVisible();
    const used = using.getByText("Used 1 memory");
    await expect(used).toBeVisible();
    await used.click();
    await expect(using.getByRole("listitem").filter({ hasText: FACT })).toBeVisible();
    await expectNoAxeViolations(page, `a reply that used a memory (${name})`);
    await reviewShots(page, `memory-reply-${name}`);

    // 3. The memory page lists it, with where it came from.
    await using.getByRole("link", { name: "Manage memories" }).click();
    await expect(page).toHaveURL(/\/dashboard\/memory$/);
    await expect(page.getByRole("heading", { name: "Memory", level: 1 })).toBeVisible();
    const list = page.getByRole("list", { name: /Your memories/ });
    await expect(list.getByRole("listitem")).toHaveCount(1);
    await expect(list.getByRole("listitem").first()).toContainText(FACT);
    await expect(list.getByRole("listitem").first()).toContainText("Saved by the assistant in");

    // 4. Added by hand; a text too long is refused with a reason, and what was typed stays.
    const add = page.getByRole("textbox", { name: "Add a memory" });
    await expect(page.getByRole("button", { name: "Save memory" })).toBeEnabled();
    const tooLong = `Has a cat called Tom. ${"x".repeat(500)}`;
    await add.fill(tooLong);
    await page.getByRole("button", { name: "Save memory" }).click();
    await expect(page.getByRole("alert")).toContainText("Please keep a memory to 500 characters or fewer");
    await expect(add).toHaveValue(tooLong);
    await add.fill("Has a cat called Tom.");
    await page.getByRole("button", { name: "Save memory" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Memory saved." })).toBeVisible();
    await expect(add).toHaveValue("");
    await expect(list.getByRole("listitem")).toHaveCount(2);
    await expect(list.getByRole("listitem").filter({ hasText: "Has a cat called Tom." })).toContainText("Added by you");
    await expectNoAxeViolations(page, `the memory page (${name})`);
    await reviewShots(page, `memory-page-${name}`, { fullPage: true });

    // 5. Edited.
    await page.getByRole("button", { name: `Edit memory “${FACT}”` }).click();
    const edit = page.getByRole("textbox", { name: "Edit memory" });
    await expect(edit).toBeFocused();
    await edit.fill("Prefers metric units, and Celsius.");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(list.getByRole("listitem").filter({ hasText: "Prefers metric units, and Celsius." })).toBeVisible();
    await expect(page.getByRole("textbox", { name: "Edit memory" })).toHaveCount(0);

    // 6. Deleted.
    await page.getByRole("button", { name: "Delete memory “Has a cat called Tom.”" }).click();
    await expect(list.getByRole("listitem")).toHaveCount(1);
    await expect(page.getByText("Has a cat called Tom.")).toHaveCount(0);

    // 7. Turned off: the next chat is given no memory and offered no memory tool.
    await page.getByRole("button", { name: "Turn memory off" }).click();
    await expect(page.getByText("Memory is off", { exact: false }).first()).toBeVisible();
    await expect(page.getByRole("button", { name: "Turn memory on" })).toBeVisible();
    await expectNoAxeViolations(page, `the memory page, memory off (${name})`);
    await reviewShots(page, `memory-off-${name}`);
    await page.goto("/nuvara");
    await scriptedModel.enqueue({ type: "text", text: "A mile is about 1.6 km." });
    await sendMessage(page, "How long is a mile?");
    await expect(replies(page).last()).toContainText("A mile is about 1.6 km.");
    const off = await modelRequestFor("How long is a mile?");
    expect(systemOf(off)).not.toContain("Celsius");
    expect((off.tools ?? []).map((tool) => tool.function.name)).not.toContain("remember");
    await expect(
      replies(page)
        .last()
        .getByText(/Used \d+ memor/),
    ).toHaveCount(0);
  });
}

for (const { name, viewport } of [
  { name: "1280", viewport: { width: 1280, height: 800 } },
  { name: "390", viewport: { width: 390, height: 844 } },
]) {
  test(`an admin turns memory off for a role: the user's memory page says so and keeps their memories, chats get none; on again, it is back (${name})`, async ({
    page,
    browser,
    newAccount,
  }) => {
    test.setTimeout(90_000);
    // A role of this test's own, so that switching it touches no other test's memory.
    const role = `memoff${name}`;
    await page.setViewportSize(viewport);
    await signIn(page, await newAccount({ role }));
    await page.goto("/dashboard/memory");
    await page.getByRole("textbox", { name: "Add a memory" }).fill(FACT);
    await page.getByRole("button", { name: "Save memory" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Memory saved." })).toBeVisible();

    const adminContext = await browser.newContext({ baseURL: env.baseURL, viewport });
    const desk = await adminContext.newPage();
    try {
      await signIn(desk, await newAccount({ role: "admin" }));
      await desk.goto("/admin/memory");
      await expect(desk.getByRole("heading", { name: "Memory", level: 1 })).toBeVisible();
      await expect(
        desk.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Memory" }),
      ).toHaveAttribute("aria-current", "page");
      // A role nobody listed: switched by its name.
      await desk.getByRole("textbox", { name: "Role" }).fill(role);
      await desk.getByRole("button", { name: "Turn off", exact: true }).click();
      await expect(desk.getByRole("status")).toHaveText(
        `Memory is off for ${role}: from their next message the assistant neither reads nor saves memories. Their memories are kept.`,
      );
      const row = desk.getByRole("row", { name: new RegExp(`^${role} \\(${role}\\)`) });
      await expect(row.getByRole("cell").first()).toHaveText("Off");
      expect(await desk.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await expectNoAxeViolations(desk, `the admins' memory switch (${name})`);
      await reviewShots(desk, `admin-memory-off-${name}`);

      // The user's page says an administrator switched it off; their memory is still there.
      await page.reload();
      await expect(page.getByRole("note")).toHaveText(/Memory is switched off for your plan by an administrator/);
      await expect(page.getByRole("list", { name: /Your memories/ }).getByRole("listitem")).toContainText(FACT);
      await expect(page.getByRole("button", { name: "Save memory" })).toHaveCount(0);
      await expectNoAxeViolations(page, `the memory page, switched off by an admin (${name})`);
      await reviewShots(page, `memory-switched-off-${name}`);

      // Their next chat is given no memory and offered no memory tool.
      await page.goto("/nuvara");
      const question = `How far is 10 km in miles? (${name})`;
      await scriptedModel.enqueue({ type: "text", text: "About 6.2 miles." });
      await sendMessage(page, question);
      await expect(replies(page).last()).toContainText("About 6.2 miles.");
      const off = await modelRequestFor(question);
      expect(systemOf(off)).not.toContain(FACT);
      expect((off.tools ?? []).map((tool) => tool.function.name)).not.toContain("remember");

      // On again from the role's row: the page offers memory again.
      await row.getByRole("button", { name: `Turn on memory for ${role}` }).click();
      await expect(desk.getByRole("status")).toHaveText(
        `Memory is on for ${role}: the assistant reads and saves their memories from their next message.`,
      );
      await expect(row.getByRole("cell").first()).toHaveText("On");
      await page.goto("/dashboard/memory");
      await expect(page.getByRole("button", { name: "Turn memory off" })).toBeVisible();
      await expect(page.getByText(/switched off for your plan/)).toHaveCount(0);
    } finally {
      await adminContext.close();
    }
  });
}
