import { expectNoAxeViolations } from "./a11y";
import { expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";
import { expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";

/**
 * A reply that searched the web (the scripted SearXNG of tests/e2e/global-setup.ts,
 * allowed by OUTBOUND_ALLOW in playwright.config.ts): its "[1]" links to its
 * Source, and the Source's title links to the page, in a new tab, without a
 * referrer; after a reload and on a share link too.
 */

const searchPort = () => process.env.E2E_SEARCH_PORT;

test.beforeEach(async () => {
  await scriptedModel.reset();
});

for (const { name, viewport } of [
  { name: "1280", viewport: { width: 1280, height: 800 } },
  { name: "390", viewport: { width: 390, height: 844 } },
]) {
  test(`a reply cites a page the web search found; the citation opens its Source, which links to the page (${name})`, async ({
    page,
    newAccount,
  }) => {
    // The whole journey (a reply, axe in both themes, two sets of screenshots, a reload, a share link)
    // took up to 55 s on a loaded machine with a slow device (E2E_CPU_SLOWDOWN).
    test.slow();
    await page.setViewportSize(viewport);
    await signIn(page, await newAccount());
    await page.goto("/nuvara");
    await scriptedModel.enqueue(
      { type: "tool-calls", calls: [{ name: "web_search", arguments: { query: "brew green tea" } }] },
      { type: "text", text: "Brew green tea at 80 degrees for two to three minutes [1]." },
    );
    await sendMessage(page, "How do I brew green tea?");
    const reply = replies(page).last();
    await expect(reply).toContainText("Brew green tea at 80 degrees for two to three minutes [1].");
    await expect(reply.getByText(/Searched the web for “brew green tea”: 5 results/)).toBeVisible();
    await expectConversationUrl(page);
    await expect(reply.getByRole("button", { name: "Copy reply" })).toBeVisible();

    const expectCitedSource = async () => {
      const answer = replies(page).last();
      // Only the page cited is listed, under its number.
      await expect(answer.locator("summary", { hasText: "Sources" })).toHaveText("Sources (1)");
      const citation = answer.getByRole("link", { name: "Source 1: How to brew green tea, 127.0.0.1" });
      await expect(citation).toHaveText("[1]");
      await citation.click();
      const source = answer.getByRole("link", { name: "How to brew green tea", exact: true });
      await expect(source).toBeInViewport();
      await expect(source).toHaveAttribute("href", `http://127.0.0.1:${searchPort()}/pages/tea`);
      await expect(source).toHaveAttribute("target", "_blank");
      await expect(source).toHaveAttribute("rel", "noopener noreferrer nofollow");
      await expect(answer.locator(".source-host")).toHaveText("127.0.0.1");
      // The snippet as text, the engine's <strong> marks left out.
      await expect(answer.locator(".source-snippet")).toHaveText("Green tea is best brewed at 80 degrees.");
    };
    await expectCitedSource();
    await expectNoAxeViolations(page, `a reply with a web source (${name})`);
    await reviewShots(page, `web-source-${name}`);

    // After a reload, from the stored reply.
    await page.reload();
    await expectCitedSource();

    // On a share link made without files, the page found is still the reply's Source.
    await page.getByRole("button", { name: "Share", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Share this conversation" });
    await dialog.getByRole("button", { name: "Create link" }).click();
    const url = await dialog.getByRole("textbox", { name: "Link" }).inputValue();
    await dialog.getByRole("button", { name: "Done" }).click();
    await page.goto(url);
    const shared = page.getByRole("log", { name: "Shared conversation" }).getByRole("article", { name: "Assistant" });
    await shared.getByRole("link", { name: "Source 1: How to brew green tea, 127.0.0.1" }).click();
    await expect(shared.getByRole("link", { name: "How to brew green tea", exact: true })).toHaveAttribute(
      "href",
      `http://127.0.0.1:${searchPort()}/pages/tea`,
    );
    await reviewShots(page, `web-source-shared-${name}`);
  });
}
