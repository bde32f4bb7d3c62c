import type { Page, Route } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";
import { visitorWorkOver } from "../support/contact-work";
import { env, expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";

/**
 * The admin's desk (/admin/messages, ADR 063): scannable rows, bulk actions
 * that answer at once, j/k and Previous / Next on a message, reports shown as
 * the conversation showed them with the user's 👍/👎, replies written in the
 * app, the reported conversation read-only and audited, cards on a phone.
 */

function marker(label: string) {
  return `${label}-${Math.random().toString(36).slice(2, 10)}`;
}

async function contact(page: Page, message: string, email = `${marker("sender")}@example.com`) {
  const response = await page.request.post("/api/contact", {
    form: { email, message, ...(await visitorWorkOver(page.request)) },
    headers: { Origin: env.baseURL },
  });
  expect(response.status()).toBe(201);
}

const table = (page: Page) => page.getByRole("table", { name: "Messages, newest first" });
const rowOf = (page: Page, text: string) => table(page).getByRole("row").filter({ hasText: text });
const weight = (page: Page, text: string) =>
  rowOf(page, text)
    .locator(".subject")
    .evaluate((el) => getComputedStyle(el).fontWeight);

/** Holds the bulk form's next POST until `release` is called with what to answer. */
async function holdNextAction(page: Page) {
  let held: Route | undefined;
  const arrived = new Promise<void>((resolve) => {
    void page.route(/\/admin\/messages\?.*_data=/, async (route) => {
      if (route.request().method() !== "POST") return route.fallback();
      held = route;
      resolve();
    });
  });
  return {
    arrived,
    /** Nothing: on to the server. An answer: as the app answers (its X-Remix-Response header). "network": the connection fails. */
    release: async (answer?: { status: number; json: unknown } | "network") => {
      await arrived;
      if (answer === "network") await held!.abort("connectionreset");
      else if (answer)
        await held!.fulfill({
          status: answer.status,
          contentType: "application/json",
          headers: { "X-Remix-Response": "yes" },
          json: answer.json,
        });
      else await held!.continue();
      await page.unroute(/\/admin\/messages\?.*_data=/);
    },
  };
}

test.describe("the list as a desk (desktop)", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("rows show sender, subject line, snippet and a relative time; new ones bold; one quiet link per row; the search hint fits", async ({
    page,
    newAccount,
  }) => {
    const tag = marker("desk");
    await contact(page, `${tag} first subject\nThe first message goes on here.`, "ann@example.com");
    await contact(page, `${tag} second subject\nAnd the second one here.`, "bob@example.com");
    await signIn(page, await newAccount({ role: "admin" }));
    await page.goto(`/admin/messages?q=${tag}`);

    const first = rowOf(page, `${tag} first subject`);
    await expect(first.getByRole("link")).toHaveCount(1);
    await expect(first.getByRole("link")).toHaveText(`${tag} first subject`);
    await expect(first).toContainText("The first message goes on here.");
    await expect(first).toContainText("ann@example.com");
    await expect(first.getByText("New", { exact: true })).toBeVisible();
    const time = first.locator("time");
    await expect(time).toHaveText("just now");
    await expect(time).toHaveAttribute("title", /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} /);
    // The subject reads as text, not as an underlined link.
    expect(await first.locator(".subject").evaluate((el) => getComputedStyle(el).textDecorationLine)).toBe("none");
    expect(await weight(page, `${tag} first subject`)).toBe("700");
    // The search box's hint is not cut.
    const fits = await page.getByRole("searchbox", { name: "Search messages" }).evaluate((input: HTMLInputElement) => {
      const style = getComputedStyle(input);
      const context = document.createElement("canvas").getContext("2d")!;
      context.font = `${style.fontSize} ${style.fontFamily}`;
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return context.measureText(input.placeholder).width <= room;
    });
    expect(fits).toBe(true);
    await expectNoAxeViolations(page, "the inbox");
    await reviewShots(page, "inbox-desktop", { fullPage: true });

    // A click anywhere on the row opens it; back on the list it is read, no longer bold.
    await first.locator("td.received").click();
    await expect(page.getByRole("heading", { level: 1, name: "Contact from ann@example.com" })).toBeVisible();
    await page.getByRole("link", { name: "← Back to messages" }).click();
    await expect(first.getByText("New", { exact: true })).toHaveCount(0);
    expect(await weight(page, `${tag} first subject`)).toBe("400");
    expect(await weight(page, `${tag} second subject`)).toBe("700");
  });

  test("bulk buttons wait for a selection and answer at once; a refused change comes back and says so", async ({
    page,
    newAccount,
  }) => {
    const tag = marker("bulk-now");
    await contact(page, `${tag} alpha`);
    await contact(page, `${tag} beta`);
    await signIn(page, await newAccount({ role: "admin" }));
    await page.goto(`/admin/messages?q=${tag}`);

    const actions = page.getByRole("group", { name: "Actions on selected messages" });
    for (const name of ["Mark read", "Mark unread", "Archive", "Delete…"])
      await expect(actions.getByRole("button", { name })).toBeDisabled();
    await expect(actions).toContainText("Tick messages to act on them");
    await page.getByRole("checkbox", { name: new RegExp(`${tag} alpha$`) }).check();
    await expect(actions).toContainText("1 selected");
    for (const name of ["Mark read", "Mark unread", "Archive", "Delete…"])
      await expect(actions.getByRole("button", { name })).toBeEnabled();

    // Mark read: the row is no longer bold while the request is still on its way.
    const held = await holdNextAction(page);
    await actions.getByRole("button", { name: "Mark read" }).click();
    await held.arrived;
    expect(await weight(page, `${tag} alpha`)).toBe("400");
    await expect(actions.getByRole("button", { name: "Archive" })).toBeDisabled();
    await held.release();
    await expect(page.getByRole("status")).toHaveText("1 message marked read.");
    expect(await weight(page, `${tag} alpha`)).toBe("400");

    // Archive, refused by the server: the row leaves at once, then comes back, ticked, with the reason.
    await page.getByRole("checkbox", { name: new RegExp(`${tag} beta$`) }).check();
    const refused = await holdNextAction(page);
    await actions.getByRole("button", { name: "Archive" }).click();
    await refused.arrived;
    await expect(rowOf(page, `${tag} beta`)).toHaveCount(0);
    await refused.release({
      status: 503,
      json: { error: "The admin data is unavailable right now. Please try again shortly." },
    });
    await expect(page.getByRole("alert")).toHaveText(
      "Could not archive them: The admin data is unavailable right now. Please try again shortly. Nothing was changed.",
    );
    await expect(rowOf(page, `${tag} beta`)).toHaveCount(1);
    await expect(page.getByRole("checkbox", { name: new RegExp(`${tag} beta$`) })).toBeChecked();

    // The connection fails: the same, in words for that.
    const lost = await holdNextAction(page);
    await actions.getByRole("button", { name: "Archive" }).click();
    await lost.arrived;
    await expect(rowOf(page, `${tag} beta`)).toHaveCount(0);
    await lost.release("network");
    await expect(page.getByRole("alert")).toHaveText(
      "Could not archive them: The server could not be reached, or its answer did not arrive. Check the connection and try again. Nothing was changed.",
    );
    await expect(page.getByRole("checkbox", { name: new RegExp(`${tag} beta$`) })).toBeChecked();

    // The same again, accepted: gone at once and for good.
    await actions.getByRole("button", { name: "Archive" }).click();
    await expect(page.getByRole("status")).toHaveText("1 message archived.");
    await expect(rowOf(page, `${tag} beta`)).toHaveCount(0);
    await page.reload();
    await expect(rowOf(page, `${tag} beta`)).toHaveCount(0);
    await expect(rowOf(page, `${tag} alpha`)).toHaveCount(1);
  });
});

test.describe("a message on the desk", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("Previous / Next and k / j walk the list with its filters; a reply is kept in the thread and the mailto stays", async ({
    page,
    newAccount,
  }) => {
    const tag = marker("walk");
    await contact(page, `${tag} oldest`, "one@example.com");
    await contact(page, `${tag} middle`, "two@example.com");
    await contact(page, `${tag} newest`, "three@example.com");
    await signIn(page, await newAccount({ role: "admin" }));
    await page.goto(`/admin/messages?q=${tag}`);
    await page.getByRole("link", { name: `${tag} newest` }).click();

    const heading = page.getByRole("heading", { level: 1 });
    const pager = page.getByRole("navigation", { name: "Messages" });
    await expect(heading).toHaveText("Contact from three@example.com");
    await expect(pager.getByRole("link", { name: "‹ Previous" })).toHaveCount(0);
    await pager.getByRole("link", { name: "Next ›" }).click();
    await expect(heading).toHaveText("Contact from two@example.com");
    await page.keyboard.press("j");
    await expect(heading).toHaveText("Contact from one@example.com");
    await expect(pager.getByRole("link", { name: "Next ›" })).toHaveCount(0);
    await page.keyboard.press("k");
    await expect(heading).toHaveText("Contact from two@example.com");
    await pager.getByRole("link", { name: "‹ Previous" }).click();
    await expect(heading).toHaveText("Contact from three@example.com");

    // Typing in the reply box is typing, not moving.
    const box = page.getByRole("textbox", { name: "Reply to three@example.com" });
    await box.fill("   ");
    await box.press("j");
    await expect(heading).toHaveText("Contact from three@example.com");
    await box.fill("   ");
    await page.getByRole("button", { name: "Save reply" }).click();
    await expect(page.getByRole("alert")).toHaveText("Write a reply first.");
    await expect(box).toHaveValue("   ");

    await expect(page.getByText("Email is not set up here (SMTP_URL)")).toBeVisible();
    await box.fill("Thanks, we are looking into it.");
    await page.getByRole("button", { name: "Save reply" }).click();
    await expect(page.getByRole("status")).toContainText("Reply saved.");
    await expect(box).toHaveValue("");
    const thread = page.getByRole("list", { name: "Replies" });
    await expect(thread.getByRole("listitem")).toHaveCount(1);
    await expect(thread).toContainText("Thanks, we are looking into it.");
    await expect(thread).toContainText("Saved here only");
    await expect(page.getByRole("link", { name: "Open in your email app" })).toHaveAttribute(
      "href",
      /^mailto:three@example\.com\?subject=/,
    );
    await expectNoAxeViolations(page, "a message with a reply");
    await reviewShots(page, "message-desktop", { fullPage: true });

    await page.reload();
    await expect(page.getByRole("heading", { level: 2, name: "1 reply" })).toBeVisible();
    await page.getByRole("link", { name: "← Back to messages" }).click();
    await expect(page).toHaveURL(new RegExp(`/admin/messages\\?q=${tag}$`));
  });

  test("a report: the reply as the chat showed it, the user's 👎 beside it, and the conversation read-only with an audit entry", async ({
    page,
    browser,
    newAccount,
  }) => {
    await scriptedModel.reset();
    const tag = marker("reported");
    await scriptedModel.enqueue({
      type: "text",
      text: `Eggs need **forty minutes** of boiling.\n\n- first step\n- second step ${tag}`,
    });
    const user = await newAccount();
    const userPage = await browser.newPage();
    await signIn(userPage, user);
    await userPage.goto("/nuvara");
    await sendMessage(userPage, `How long to boil an egg? ${tag}`);
    await expect(replies(userPage)).toHaveCount(1);
    await expectConversationUrl(userPage);
    await replies(userPage).getByRole("button", { name: "Bad reply" }).click();
    await expect(replies(userPage).getByRole("button", { name: "Bad reply" })).toHaveAttribute("aria-pressed", "true");
    await replies(userPage).getByRole("button", { name: "Report" }).click();
    const dialog = userPage.getByRole("dialog", { name: "Report this reply" });
    await dialog.getByRole("radio", { name: "Wrong" }).check();
    await dialog.getByRole("textbox", { name: "Comment (optional)" }).fill(`Far too long ${tag}`);
    await dialog.getByRole("button", { name: "Send report" }).click();
    await expect(dialog.getByText("Your report was sent to the admins.")).toBeVisible();
    await userPage.close();

    const adminAccount = await newAccount({ role: "admin" });
    await signIn(page, adminAccount);
    await page.goto(`/admin/messages?kind=report&q=${tag}`);
    await expect(rowOf(page, `Far too long ${tag}`)).toContainText("Report: Wrong");
    await page.getByRole("link", { name: `Far too long ${tag}` }).click();

    const shown = page.getByLabel("Assistant's reply as shown");
    await expect(shown.locator("strong")).toHaveText("forty minutes");
    await expect(shown.getByRole("listitem")).toHaveText(["first step", `second step ${tag}`]);
    await expect(shown).not.toContainText("**");
    await expect(page.getByText("Rated bad by the user")).toBeVisible();
    await expectNoAxeViolations(page, "a report");
    await reviewShots(page, "report-desktop", { fullPage: true });

    await page.getByRole("link", { name: "Open the whole conversation (read-only)" }).click();
    await expect(page.getByRole("note")).toContainText("Your opening of it was recorded in the admin audit log.");
    await expect(page.getByRole("note")).toContainText("The reported reply is message 2 of 2.");
    await expect(page.getByRole("article", { name: "User" }).locator(".user-text")).toHaveText(
      `How long to boil an egg? ${tag}`,
    );
    await expect(page.locator("strong", { hasText: "forty minutes" })).toBeVisible();
    // Read-only: nothing to type into, no reply actions.
    await expect(page.getByRole("textbox")).toHaveCount(0);
    await expect(page.getByRole("button", { name: /Report|Regenerate|Good reply|Bad reply/ })).toHaveCount(0);
    await expectNoAxeViolations(page, "the reported conversation");
    await reviewShots(page, "conversation-desktop", { fullPage: true });

    await page.getByRole("link", { name: "← Back to the report" }).click();
    const openings = page.getByText("Conversation opened once");
    await expect(openings).toBeVisible();
    await openings.click();
    await expect(page.getByRole("listitem").filter({ hasText: adminAccount.email })).toContainText("just now");
  });
});

test("without JavaScript a reply still works: a refused one comes back with the text, a good one is kept", async ({
  browser,
  newAccount,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const tag = marker("nojs");
  await contact(page, `${tag} question`, "plain@example.com");
  await signIn(page, await newAccount({ role: "admin" }));
  await page.goto(`/admin/messages?q=${tag}`);
  await page.getByRole("link", { name: `${tag} question` }).click();
  const box = page.getByRole("textbox", { name: "Reply to plain@example.com" });
  await box.fill(" ".repeat(3));
  await page.getByRole("button", { name: "Save reply" }).click();
  await expect(page.getByRole("alert")).toHaveText("Write a reply first.");
  await expect(box).toHaveValue("   ");
  await box.fill(`Answered without scripts ${tag}`);
  await page.getByRole("button", { name: "Save reply" }).click();
  await expect(page.getByRole("status")).toContainText("Reply saved.");
  await expect(page.getByRole("list", { name: "Replies" })).toContainText(`Answered without scripts ${tag}`);
  await context.close();
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the list is a column of cards no wider than the screen, and a message fits too", async ({
    page,
    newAccount,
  }) => {
    const tag = marker("phone");
    await contact(
      page,
      `${tag} a fairly long subject line that would not fit on one line of a phone\nwith a second line of text under it`,
      "phone.sender.with.a.long.address@example.com",
    );
    await contact(page, `${tag} short one`);
    await signIn(page, await newAccount({ role: "admin" }));
    await page.goto(`/admin/messages?q=${tag}`);

    const card = rowOf(page, `${tag} short one`);
    await expect(card).toBeVisible();
    expect(await card.evaluate((el) => getComputedStyle(el).display)).toBe("grid");
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    const box = (await card.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    // The header's only visible part is "Select all".
    await expect(page.getByRole("checkbox", { name: "Select all on this page" })).toBeVisible();
    await expectNoAxeViolations(page, "the inbox on a phone");
    await reviewShots(page, "inbox-phone", { fullPage: true });

    await card.getByRole("link").click();
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectNoAxeViolations(page, "a message on a phone");
    await reviewShots(page, "message-phone", { fullPage: true });
  });
});
