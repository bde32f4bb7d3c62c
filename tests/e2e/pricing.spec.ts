import { expectNoAxeViolations } from "./a11y";
import { expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";
import { expect, mainNav, signIn, test } from "./fixtures";

/**
 * Plans (docs/decisions/073) and budgets (072) as a person meets them: from
 * /pricing through the scripted Stripe Checkout back to a nav that shows the
 * new plan, and a budget running out in the composer.
 */
test.describe("plans", () => {
  test("Subscribe → Checkout → Pay: back on /pricing, the nav shows the Pro plan", async ({ page, newAccount }) => {
    await signIn(page, await newAccount());
    await page.goto("/pricing");
    await expect(page.getByRole("heading", { name: "Plans", level: 1 })).toBeVisible();
    await expect(page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: /Free/ }) })).toContainText(
      "messages a day",
    );
    await expect(mainNav(page).getByText("Pro")).toHaveCount(0);
    await expectNoAxeViolations(page, "/pricing");

    await page.getByRole("button", { name: "Subscribe to Pro" }).click();
    await expect(page.getByRole("heading", { name: /Pay for price_e2epro/ })).toBeVisible();
    await page.getByRole("button", { name: "Pay" }).click();

    await expect(page).toHaveURL(/\/pricing\?checkout=done$/);
    await expect(page.getByRole("status").filter({ hasText: "Thank you" })).toBeVisible();
    await expect(mainNav(page).getByText("Your plan: Pro")).toBeVisible();
    await expect(page.getByText("You're on the Pro plan.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Subscribe to Pro" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Manage your subscription" })).toBeVisible();
  });

  test("a budget running out: the composer says what is left, then that it is spent, with the way to more", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount({ role: "budgeted" }));
    await page.goto("/nuvara");
    await expect(page.getByText("400 tokens left today")).toBeVisible();
    const spent = page.getByText(/You've used today's budget of 400 tokens|isn't enough for this message/).first();
    const refused = page.getByRole("alert");
    // The composer's budget line: what is left, or that it is spent.
    const budgetLine = page.getByText(/tokens left today|You've used today's budget/);
    for (let sent = 0; sent < 6; sent += 1) {
      if ((await spent.isVisible()) || (await refused.isVisible())) break;
      const before = await budgetLine.textContent();
      await scriptedModel.enqueue({ type: "text", text: Array.from({ length: 150 }, (_, i) => `w${i}`).join(" ") });
      await sendMessage(page, `Tell me something long, number ${sent}`);
      await expect(replies(page).nth(sent).or(refused)).toBeVisible();
      // A new chat takes its address after the first reply: typing waits for that.
      if (sent === 0) await expectConversationUrl(page);
      if (await refused.isVisible()) break;
      // The reply is cut at what the budget leaves (LLM_MAX_OUTPUT_TOKENS 100 at most).
      await expect(replies(page).nth(sent)).not.toContainText("w100");
      // The page reads the budget again after each reply: the line shows what this one used.
      await expect(budgetLine).not.toHaveText(before ?? "");
    }
    await expect(spent).toBeVisible();
    // One status line says why sending stopped and when it starts again: no count of messages beside it.
    await expect(page.getByText(/messages? left today/)).toHaveCount(0);
    await expect(page.getByRole("link", { name: "See plans" }).first()).toBeVisible();
    await expectNoAxeViolations(page, "/nuvara with the budget spent");
  });
});
