import type { Locator, Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";
import { expect, signIn, test } from "./fixtures";

/**
 * Code, tables and display math stay in the reading column (ADR 082): at
 * 1280×800 their boxes lie inside the reply's; on a phone a wide table, a
 * long line of code or a long formula scrolls sideways in its own box, shows
 * a fade on the side with more, and can be reached and scrolled with the
 * keyboard.
 */

const LONG_LINE = `const totals = samples.map((sample) => sample.requests * sample.weight).filter((value) => value > threshold).reduce((sum, value) => sum + value, 0); // ${"x".repeat(40)}`;
const WIDE_TABLE = [
  "| Region | Requests per second | Median latency | 95th percentile | Errors per thousand | Notes on the measurement |",
  "|---|---|---|---|---|---|",
  "| Europe (Frankfurt) | 1850 | 28 ms | 95 ms | 0.4 | measured after the cache was warmed |",
  "| North America (Virginia) | 2210 | 31 ms | 102 ms | 0.6 | a noisy neighbour during the run |",
].join("\n");
/** Display math wider than the column at both sizes: eight sums. */
const WIDE_MATH = Array.from(
  { length: 8 },
  (_, i) => `\\sum_{i=1}^{N_${i + 1}} (x_{${i + 1},i} - \\mu_${i + 1})^2`,
).join(" + ");
const REPLY = `Here is the code:\n\n\`\`\`ts\n${LONG_LINE}\n\`\`\`\n\nAnd the figures:\n\n${WIDE_TABLE}\n\nThe spread:\n\n$$\n${WIDE_MATH}\n$$\n\nDone.`;

const SIZES = [
  { name: "1280×800", viewport: { width: 1280, height: 800 } },
  { name: "390×844", viewport: { width: 390, height: 844 } },
] as const;

async function showWideReply(page: Page, account: { email: string; password: string }) {
  await signIn(page, account);
  await page.goto("/nuvara");
  await scriptedModel.reset();
  await scriptedModel.enqueue({ type: "text", text: REPLY });
  await sendMessage(page, "Code and a wide table, please");
  // Measured on the conversation's own page: the new chat's page gives way to it once the reply shows.
  await expectConversationUrl(page);
  const reply = replies(page).last();
  await expect(reply).toContainText("Done.");
  await expect(reply.getByRole("button", { name: "Copy reply" })).toBeVisible();
  // Finished with its math: the reply renders once more when KaTeX arrives, and is measured after that.
  await expect(reply.getByRole("region", { name: "Math, scrolls sideways" })).toBeVisible();
  return reply;
}

/** The element's box once it is laid out (polled: a re-render may replace it between finding and measuring it). */
async function box(locator: Locator) {
  let found: Awaited<ReturnType<Locator["boundingBox"]>> = null;
  await expect
    .poll(async () => {
      found = await locator.boundingBox();
      return found !== null;
    }, `${locator} laid out`)
    .toBe(true);
  return found!;
}

test("at 1280×800, code blocks and tables lie inside the reading column", async ({ page, newAccount }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const reply = await showWideReply(page, await newAccount());
  const column = await box(reply.locator(".markdown"));
  for (const part of [
    reply.locator(".code-block"),
    reply.locator("table").locator("xpath=ancestor::*[contains(@class,'scroll-x')][1]"),
    reply.locator("math").locator("xpath=ancestor::*[contains(@class,'scroll-x')][1]"),
  ]) {
    await expect(part).toBeVisible();
    const inner = await box(part);
    expect(inner.x).toBeGreaterThanOrEqual(column.x - 0.5);
    expect(inner.x + inner.width).toBeLessThanOrEqual(column.x + column.width + 0.5);
  }
  // The code's long line scrolls inside its block, which says so and takes focus.
  await expect(reply.getByRole("region", { name: "Code, scrolls sideways" })).toBeVisible();
  await expect(reply.getByRole("region", { name: "Math, scrolls sideways" })).toBeVisible();
});

for (const size of SIZES) {
  for (const scheme of ["light", "dark"] as const) {
    test(`wide code, tables and math scroll in their own box, with a hint, by keyboard (${size.name}, ${scheme})`, async ({
      page,
      newAccount,
    }) => {
      await page.setViewportSize(size.viewport);
      await page.emulateMedia({ colorScheme: scheme });
      const reply = await showWideReply(page, await newAccount());
      const column = await box(reply.locator(".markdown"));
      const regions = [
        reply.getByRole("region", { name: "Code, scrolls sideways" }),
        reply.getByRole("region", { name: "Math, scrolls sideways" }),
        ...(size.viewport.width < 600 ? [reply.getByRole("region", { name: "Table, scrolls sideways" })] : []),
      ];
      for (const region of regions) {
        await expect(region).toBeVisible();
        const outer = await box(region);
        // The box stays in the column; its content is wider and scrolls.
        expect(outer.x + outer.width).toBeLessThanOrEqual(column.x + column.width + 0.5);
        expect(await region.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
        const frame = region.locator("xpath=..");
        await expect(frame).toHaveClass(/more-right/);
        await expect(frame).not.toHaveClass(/more-left/);
        // Reached with the keyboard: focused, the arrow keys scroll it.
        await region.focus();
        await expect(region).toBeFocused();
        await page.keyboard.press("ArrowRight");
        await expect.poll(() => region.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
        await region.evaluate((element) => element.scrollTo({ left: element.scrollWidth }));
        await expect(frame).toHaveClass(/more-left/);
        await expect(frame).not.toHaveClass(/more-right/);
        await region.evaluate((element) => element.scrollTo({ left: 0 }));
        await expect(frame).toHaveClass(/more-right/);
      }
      await page.screenshot({ path: `/tmp/wide-reply-${size.viewport.width}-${scheme}.png` });
      await expectNoAxeViolations(page, `a reply with wide code and a table, ${size.name}, ${scheme}`);
    });
  }
}
