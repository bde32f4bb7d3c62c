import type { Browser, Page } from "@playwright/test";
import { createAccount, type TestAccount } from "../support/identity";
import { expectNoAxeViolations, expectNonTextContrast, expectVisibleFocus } from "./a11y";
import { composer, expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";
import { env, expect, signIn, test } from "./fixtures";
import { trackNetwork } from "./network-quiet";

/**
 * WCAG 2.2 AA, measured: every page and state — signed out, a user, an admin,
 * the chat mid-stream and after an error, every dialog, the phone's drawer —
 * at 1280×800 and 390×844, one test each, in the light and then the dark
 * theme: axe-core finds nothing (in the dark, its colour rules: nothing else
 * changes), text fields, selects and icons stand out from what is behind
 * them by at least 3:1; and the first Tab stops show where focus is (once: a
 * focus ring does not depend on the theme). docs/decisions/087 says why.
 */

const SIZES = [
  { name: "1280×800", viewport: { width: 1280, height: 800 }, phone: false },
  { name: "390×844", viewport: { width: 390, height: 844 }, phone: true },
] as const;
const SCHEMES = ["light", "dark"] as const;
const headers = { Origin: env.baseURL };

/** What the pages need to show: a user with a conversation (long code and a wide table) that is shared, an admin with a message in the inbox. */
interface World {
  user: TestAccount;
  admin: TestAccount;
  conversationPath: string;
  sharePath: string;
  inboxMessagePath: string;
}

type PathOf = (world: World) => string;
const SIGNED_OUT: Array<[string, PathOf]> = [
  ["home", () => "/"],
  ["login", () => "/login"],
  ["tools", () => "/tools"],
  ["a tool", () => "/tools/summarize"],
  ["pricing", () => "/pricing"],
  ["a shared conversation", (world) => world.sharePath],
  ["not found", () => "/no-such-page"],
];
const USER: Array<[string, PathOf]> = [
  ["home", () => "/"],
  ["dashboard", () => "/dashboard"],
  ["tools", () => "/tools"],
  ["a tool", () => "/tools/summarize"],
  ["pricing", () => "/pricing"],
  ["the assistant", () => "/nuvara"],
  ["a conversation", (world) => world.conversationPath],
  ["the archived chats", () => "/nuvara?view=archived"],
  ["a temporary chat", () => "/nuvara?temporary=1"],
];
const ADMIN: Array<[string, PathOf]> = [
  ["messages", () => "/admin/messages"],
  ["a message", (world) => world.inboxMessagePath],
  ["users", () => "/admin/users"],
  ["feedback", () => "/admin/feedback"],
  ["usage", () => "/admin/usage"],
  ["API access", () => "/admin/api"],
  ["memory per role", () => "/admin/memory"],
  ["a new tool", () => "/tools/new"],
  ["editing a tool", () => "/tools/summarize/edit"],
];

async function pageAs(browser: Browser, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ baseURL: env.baseURL, viewport, colorScheme: "light" });
  const page = await context.newPage();
  trackNetwork(page);
  return { page, close: () => context.close() };
}

/** The page in this theme, once no colour is still fading from the other one (CSS transitions). */
async function useScheme(page: Page, scheme: (typeof SCHEMES)[number]) {
  await page.emulateMedia({ colorScheme: scheme });
  expect(await page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches), scheme).toBe(scheme === "dark");
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every((animation) => !(animation instanceof CSSTransition) || animation.playState !== "running"),
  );
}

/** Every check on the page as it is now, in both themes. */
async function expectAccessible(page: Page, state: string, { focus = true } = {}) {
  for (const scheme of SCHEMES) {
    await useScheme(page, scheme);
    // The second theme changes only colours: axe's colour rules, and the contrast of fields and icons.
    await expectNoAxeViolations(page, `${state}, ${scheme}`, { coloursOnly: scheme !== SCHEMES[0] });
    await expectNonTextContrast(page, `${state}, ${scheme}`);
  }
  if (focus) await expectVisibleFocus(page, state, 12);
}

async function visit(page: Page, path: string, state: string) {
  const response = await page.goto(path);
  expect(response?.status(), `${state}: ${path}`).toBeLessThan(500);
  await trackNetwork(page).quiet();
  await expectAccessible(page, `${state} ${path}`);
}

async function prepareWorld(browser: Browser, accounts: { user: TestAccount; admin: TestAccount }): Promise<World> {
  const { page, close } = await pageAs(browser, { width: 1280, height: 800 });
  await signIn(page, accounts.user);
  await page.goto("/nuvara");
  await scriptedModel.reset();
  await scriptedModel.enqueue({
    type: "text",
    // Long code and a wide table: on a phone both scroll sideways, in boxes a keyboard reaches (ADR 082).
    text:
      "Here is **code**:\n\n```js\nconsole.log('hi', { requests: samples.length, mean: total / samples.length, slowest: Math.max(...samples) });\n```\n\n" +
      "| Region | Requests per second | Median latency | Errors per thousand | Notes |\n|---|---|---|---|---|\n" +
      "| Europe (Frankfurt) | 1850 | 28 ms | 0.4 | measured after the cache was warmed |\n\nDone.",
  });
  await sendMessage(page, "Show me code and a table");
  await expect(replies(page)).toHaveText([/Done\./]);
  await expectConversationUrl(page);
  const conversationPath = new URL(page.url()).pathname;
  const share = await page.request.post(`/api/conversations/${conversationPath.split("/").at(-1)}/share`, {
    form: { intent: "create", displayName: "Ada" },
    headers: { ...headers, Accept: "application/json" },
  });
  expect(share.ok()).toBe(true);
  const sharePath = ((await share.json()) as { share: { path: string } }).share.path;
  await close();

  const admin = await pageAs(browser, { width: 1280, height: 800 });
  await signIn(admin.page, accounts.admin);
  const contact = await admin.page.request.post("/api/contact", {
    form: { email: "visitor@example.com", message: "A question about plans" },
    headers,
  });
  expect(contact.status()).toBe(201);
  await admin.page.goto("/admin/messages");
  const inboxMessagePath = await admin.page.locator('a[href^="/admin/messages/"]').first().getAttribute("href");
  expect(inboxMessagePath).toBeTruthy();
  await admin.close();
  return { ...accounts, conversationPath, sharePath, inboxMessagePath: inboxMessagePath! };
}

let world: Promise<World> | undefined;

test.beforeEach(async () => {
  await scriptedModel.reset();
});

for (const size of SIZES) {
  const state = size.name;

  test.describe(`accessibility, ${state}`, () => {
    // A page's checks (axe and contrast twice, a dozen Tab stops) take seconds on a busy 2-core machine.
    test.describe.configure({ timeout: 90_000 });

    test.beforeAll(async ({ browser, firebase }) => {
      // Made once for the whole sweep, by the first group that needs it.
      world ??= (async () =>
        prepareWorld(browser, {
          user: await createAccount(firebase, { displayName: "Ada Reader" }),
          admin: await createAccount(firebase, { role: "admin" }),
        }))();
      await world;
    });

    /** A page of the user's, signed in, in this size and theme. */
    async function asUser(browser: Browser) {
      const opened = await pageAs(browser, size.viewport);
      await signIn(opened.page, (await world!).user);
      return opened;
    }

    for (const [label, pathOf] of SIGNED_OUT) {
      test(`signed out: ${label}`, async ({ browser }) => {
        const { page, close } = await pageAs(browser, size.viewport);
        await visit(page, pathOf(await world!), `signed out, ${state}`);
        await close();
      });
    }

    for (const [label, pathOf] of USER) {
      test(`a user: ${label}`, async ({ browser }) => {
        const { page, close } = await asUser(browser);
        await visit(page, pathOf(await world!), `user, ${state}`);
        await close();
      });
    }

    for (const [label, pathOf] of ADMIN) {
      test(`an admin: ${label}`, async ({ browser }) => {
        const { page, close } = await pageAs(browser, size.viewport);
        await signIn(page, (await world!).admin);
        await visit(page, pathOf(await world!), `admin, ${state}`);
        await close();
      });
    }

    /** Opens a settings item where a person finds it: the sidebar's Settings menu, in the drawer on a phone (checked open, too). */
    async function openSidebarItem(page: Page, name: string) {
      if (size.phone) {
        const toggle = page.getByRole("button", { name: "Conversations", exact: true });
        // Once the page knows it is on a phone (its title says so) the button opens the drawer, not the desktop list.
        await expect(toggle).toHaveAttribute("title", "Conversations");
        await toggle.click();
        await expect(page.getByRole("navigation", { name: "Conversations" })).toBeVisible();
        await expectAccessible(page, `user, conversation drawer open, ${state}`, { focus: false });
      }
      // The footer's Settings menu holds it.
      await page.getByRole("button", { name: "Settings" }).click();
      await page.getByRole("menuitem", { name, exact: false }).click();
    }

    for (const dialog of ["Keyboard shortcuts", "Custom instructions"]) {
      test(`a user: the ${dialog.toLowerCase()} dialog`, async ({ browser }) => {
        const { page, close } = await asUser(browser);
        await page.goto((await world!).conversationPath);
        await openSidebarItem(page, dialog);
        await expect(page.getByRole("dialog", { name: dialog })).toBeVisible();
        await expectAccessible(page, `user, ${dialog} dialog, ${state}`, { focus: false });
        await close();
      });
    }

    /** The conversation list, opened as a drawer on a phone. */
    async function openList(page: Page) {
      if (size.phone) {
        const toggle = page.getByRole("button", { name: "Conversations", exact: true });
        await expect(toggle).toHaveAttribute("title", "Conversations");
        await toggle.click();
      }
      const list = page.getByRole("navigation", { name: "Conversations" });
      await expect(list).toBeVisible();
      return list;
    }

    test("a user: a chat's ⋯ menu open", async ({ browser }) => {
      const { page, close } = await asUser(browser);
      await page.goto((await world!).conversationPath);
      const list = await openList(page);
      await list
        .getByRole("button", { name: /^Actions for “/ })
        .first()
        .click();
      await expect(list.getByRole("menu")).toBeVisible();
      await expectAccessible(page, `user, row menu open, ${state}`, { focus: false });
      await close();
    });

    test("a user: selecting chats", async ({ browser }) => {
      const { page, close } = await asUser(browser);
      await page.goto((await world!).conversationPath);
      const list = await openList(page);
      await list.getByRole("button", { name: "Select" }).click();
      await list.getByRole("checkbox").first().check();
      await expect(list.getByRole("group", { name: "Selected chats" })).toContainText("1 selected");
      await expectAccessible(page, `user, select mode, ${state}`, { focus: false });
      await close();
    });

    // Opened and left unsaved: the shared world keeps no project (docs/decisions/106).
    test("a user: the new project dialog", async ({ browser }) => {
      const { page, close } = await asUser(browser);
      await page.goto((await world!).conversationPath);
      const list = await openList(page);
      await list.getByRole("button", { name: "New project" }).click();
      const dialog = page.getByRole("dialog", { name: "New project" });
      await dialog.getByRole("textbox", { name: "Project name" }).fill("Trip to Lisbon");
      await expectAccessible(page, `user, new project dialog, ${state}`, { focus: false });
      await close();
    });

    test("a user: a temporary chat with a reply", async ({ browser }) => {
      const { page, close } = await asUser(browser);
      await page.goto("/nuvara?temporary=1");
      await sendMessage(page, "A question not kept");
      await expect(replies(page)).toHaveText([/A question not kept/]);
      await expect(page.getByText("Temporary chat — not saved to your history.")).toBeVisible();
      await expectAccessible(page, `user, temporary chat, ${state}`, { focus: false });
      await close();
    });

    test("a user: the report dialog", async ({ browser }) => {
      const { page, close } = await asUser(browser);
      await page.goto((await world!).conversationPath);
      await replies(page).last().getByRole("button", { name: "Report" }).click();
      await expect(page.getByRole("dialog")).toBeVisible();
      await expectAccessible(page, `user, report dialog, ${state}`, { focus: false });
      await close();
    });

    test("a user: the share dialog", async ({ browser }) => {
      const { page, close } = await asUser(browser);
      await page.goto((await world!).conversationPath);
      await page.getByRole("button", { name: "Share", exact: true }).click();
      await expect(
        page.getByRole("dialog", { name: "Share this conversation" }).getByRole("textbox", { name: "Link" }),
      ).toBeVisible();
      await expectAccessible(page, `user, share dialog, ${state}`, { focus: false });
      await close();
    });

    test("a user: a reply streaming", async ({ browser }) => {
      const { page, close } = await asUser(browser);
      await page.goto("/nuvara");
      await scriptedModel.enqueue({
        type: "text",
        // Still writing through both themes' checks: forty words, a word every 300 ms.
        text: Array.from({ length: 40 }, (_, index) => `word${index + 1}`).join(" "),
        chunkDelayMs: 300,
      });
      await sendMessage(page, "Count slowly");
      await expect(composer(page).stop).toBeVisible();
      await expect(replies(page).last()).toContainText("word1");
      await expectAccessible(page, `user, reply streaming, ${state}`, { focus: false });
      await page.keyboard.press("Escape");
      await expect(composer(page).send).toBeVisible();
      await close();
    });

    test("a user: a failed reply with Retry", async ({ browser }) => {
      const { page, close } = await asUser(browser);
      await page.goto("/nuvara");
      await scriptedModel.failWith({ type: "http-error", status: 500 });
      await sendMessage(page, "This one fails");
      await expect(page.getByRole("button", { name: "Retry" })).toBeVisible();
      await expectAccessible(page, `user, failed reply with Retry, ${state}`, { focus: false });
      await close();
    });
  });
}
