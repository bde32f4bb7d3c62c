import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";
import { expect, signIn, test } from "./fixtures";
import { trackNetwork } from "./network-quiet";

/**
 * ADR 051: the code highlighter is downloaded only when a reply shows a code
 * block naming its language, and then only that language's grammar; the
 * Markdown pipeline is not part of the page's first load.
 */
test.beforeEach(async () => {
  await scriptedModel.reset();
});

/** Every script the page requests from now on. */
function scriptRequests(page: Page) {
  const urls: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") urls.push(new URL(request.url()).pathname);
  });
  return urls;
}

const CODE_REPLY = ["Here it is:", "", "```python", "def answer():", "    return 42", "```"].join("\n");

test("a reply without code loads no highlighter; one with code is highlighted, loading only its grammar", async ({
  page,
  newAccount,
}) => {
  const scripts = scriptRequests(page);
  const network = trackNetwork(page);
  const consoleErrors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  await signIn(page, await newAccount());
  await page.goto("/nuvara");

  await scriptedModel.enqueue({ type: "text", text: "Plain **words**, no code at all." });
  await sendMessage(page, "Say something plain");
  const first = replies(page).first();
  await expect(first.locator("strong", { hasText: "words" })).toBeVisible();
  await expectConversationUrl(page);
  await network.quiet();
  expect(scripts.filter((url) => /\/highlighter-[A-Z0-9]+\.js$/.test(url))).toEqual([]);
  // The Markdown pipeline came as its own chunk, after the page's first load.
  expect(scripts.some((url) => /\/markdown-render-[A-Z0-9]+\.js$/.test(url))).toBe(true);

  await scriptedModel.enqueue({ type: "text", text: CODE_REPLY });
  await sendMessage(page, "Show me some Python");
  const second = replies(page).nth(1);
  await expect(second.locator("code.hljs.language-python .hljs-keyword", { hasText: "def" })).toBeVisible();
  await expect(second.locator("pre")).toHaveText("def answer():\n    return 42\n");
  expect(scripts.filter((url) => /\/highlighter-[A-Z0-9]+\.js$/.test(url))).toHaveLength(1);
  expect(scripts.some((url) => /\/python-[A-Z0-9]+\.js$/.test(url))).toBe(true);
  expect(scripts.some((url) => /\/(javascript|rust|cpp)-[A-Z0-9]+\.js$/.test(url))).toBe(false);
  await expectNoAxeViolations(page, "a highlighted code block");

  // Reopened: the server's HTML shows the code as plain text, and the browser highlights it after hydration.
  scripts.length = 0;
  const html = await (await page.request.get(page.url())).text();
  expect(html).toContain('<code class="language-python">def answer():');
  expect(html).not.toContain("hljs-keyword");
  await page.reload();
  await expect(
    replies(page).nth(1).locator("code.hljs.language-python .hljs-keyword", { hasText: "def" }),
  ).toBeVisible();
  await expect(replies(page).first().locator("strong", { hasText: "words" })).toBeVisible();
  expect(consoleErrors.filter((text) => /hydrat|did not match/i.test(text))).toEqual([]);
});

test("an open conversation without code loads no highlighter", async ({ page, newAccount }) => {
  await signIn(page, await newAccount());
  await page.goto("/nuvara");
  await scriptedModel.enqueue({ type: "text", text: "A list:\n\n- one\n- two" });
  await sendMessage(page, "List two things");
  await expect(replies(page).first().getByRole("listitem")).toHaveCount(2);
  await expectConversationUrl(page);

  const scripts = scriptRequests(page);
  const network = trackNetwork(page);
  await page.reload();
  await network.quiet();
  await expect(replies(page).first().getByRole("listitem")).toHaveCount(2);
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.filter((url) => /\/highlighter-[A-Z0-9]+\.js$/.test(url))).toEqual([]);
});

test("math is drawn as MathML, and KaTeX is loaded only for a reply that has math (ADR 056)", async ({
  page,
  newAccount,
}) => {
  const scripts = scriptRequests(page);
  const network = trackNetwork(page);
  await signIn(page, await newAccount());
  await page.goto("/nuvara");

  await scriptedModel.enqueue({ type: "text", text: "It costs $5 and $6, no math here." });
  await sendMessage(page, "Prices");
  await expect(replies(page).first()).toContainText("It costs $5 and $6");
  await expectConversationUrl(page);
  await network.quiet();
  expect(scripts.filter((url) => /\/markdown-math-[A-Z0-9]+\.js$/.test(url))).toEqual([]);
  await expect(replies(page).first().locator("math")).toHaveCount(0);

  await scriptedModel.enqueue({
    type: "text",
    text: "Euler: \\(e^{i\\pi} + 1 = 0\\), and\n\n$$\n\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}\n$$",
  });
  await sendMessage(page, "Some math");
  const reply = replies(page).nth(1);
  await expect(reply.locator("math")).toHaveCount(2);
  await expect(reply.locator('math[display="block"] mfrac')).toBeVisible();
  await expect(reply).not.toContainText("\\frac", { useInnerText: true });
  expect(scripts.filter((url) => /\/markdown-math-[A-Z0-9]+\.js$/.test(url))).toHaveLength(1);
  await expectNoAxeViolations(page, "a reply with math");

  // The server renders it too: the reopened conversation's HTML already has the MathML.
  const html = await (await page.request.get(page.url())).text();
  expect(html).toContain('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">');
  await page.reload();
  await expect(replies(page).nth(1).locator("math")).toHaveCount(2);
});
