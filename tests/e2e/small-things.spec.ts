import type { Page } from "@playwright/test";
import { replies, scriptedModel, sendMessage } from "./assistant-support";
import { expectNoAxeViolations } from "./a11y";
import { expect, signIn, test } from "./fixtures";

/**
 * Small things people notice: reply headings, wide code blocks,
 * the dashboard's charts and cards on a phone, local times, the tools filter
 * row and a tool form's stale error. Desktop and phone width.
 */
const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

test.beforeEach(async () => {
  await scriptedModel.reset();
});

/** React's hydration mismatches, as the production build reports them (errors #418, #423, #425). */
function watchHydration(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && /hydrat|#41[89]|#42[235]/i.test(message.text())) problems.push(message.text());
  });
  page.on("pageerror", (error) => {
    if (/hydrat|#41[89]|#42[235]/i.test(error.message)) problems.push(error.message);
  });
  return problems;
}

const REPLY = [
  "# A big heading",
  "",
  "Some text.",
  "",
  "## Second",
  "",
  "### Third",
  "",
  "```js",
  `const wide = "${"x".repeat(150)}";`,
  "```",
].join("\n");

for (const size of SIZES) {
  test.describe(`small things (${size.name})`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test("a reply's headings are no larger than the conversation title", async ({ page, newAccount }) => {
      await signIn(page, await newAccount());
      await page.goto("/nuvara");
      await scriptedModel.enqueue({ type: "text", text: REPLY });
      await sendMessage(page, "show me headings");
      const reply = replies(page).first();
      await expect(reply.getByRole("heading", { name: "A big heading" })).toBeVisible();
      await expect(reply.getByRole("heading", { name: "Third" })).toBeVisible();
      // Measured together and polled: the page settles (the new conversation's URL, the full
      // Markdown renderer) just after the reply shows.
      const sizes = () =>
        page.evaluate(() => {
          const px = (element: Element | null) => (element ? parseFloat(getComputedStyle(element).fontSize) : NaN);
          const headings = [
            ...document.querySelectorAll("[role=log] article h1, [role=log] article h2, [role=log] article h3"),
          ];
          return { title: px(document.getElementById("chat-title")), headings: headings.map(px) };
        });
      await expect.poll(async () => (await sizes()).headings.length).toBe(3);
      await expect.poll(async () => (await sizes()).title).toBeGreaterThan(10);
      const { title, headings } = await sizes();
      for (const heading of headings) expect(heading).toBeLessThanOrEqual(title);
    });

    test("dashboard: chart labels readable, stat cards say their period", async ({ page, newAccount }) => {
      await signIn(page, await newAccount());
      await page.goto("/dashboard");
      const usage = page.getByRole("region", { name: "Usage" });
      await expect(usage.getByRole("img", { name: /Messages per day, last 30 days/ })).toBeVisible();
      // The axis labels (hidden from screen readers, which get the description) render at 11 px or more.
      const labels = usage.locator(".chart-ticks span, .chart-day");
      expect(await labels.count()).toBeGreaterThanOrEqual(12);
      for (const size of await labels.evaluateAll((elements) =>
        elements.map((element) => parseFloat(getComputedStyle(element).fontSize)),
      )) {
        expect(size).toBeGreaterThanOrEqual(11);
      }
      // Every label within the screen, none overlapping its neighbour on the date axis.
      for (const axis of await usage.locator(".chart-days").all()) {
        const days = await axis
          .locator(".chart-day")
          .evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().toJSON() as DOMRect));
        expect(days).toHaveLength(3);
        for (const box of days) expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
        for (let index = 1; index < days.length; index++)
          expect(days[index].x).toBeGreaterThanOrEqual(days[index - 1].x + days[index - 1].width);
      }

      for (const term of ["Messages", "Tokens", "Tokens in / out", "Active days"]) {
        await expect(
          usage
            .getByRole("term")
            .filter({ hasText: new RegExp(`^${term.replace(/[/]/g, "\\/")} in the last 30 days$`) }),
        ).toBeVisible();
      }
      await expect(usage.getByText(/messages used today|messages today/)).toBeVisible();
      await expectNoAxeViolations(page, `dashboard (${size.name})`);
    });

    test("tools: the filter row's fields and button line up", async ({ page }) => {
      await page.goto("/tools");
      const search = page.getByRole("search", { name: "Tools" });
      const boxes = await Promise.all(
        [
          search.getByRole("searchbox", { name: "Search tools" }),
          search.getByRole("combobox", { name: "Category" }),
          search.getByRole("button", { name: "Search" }),
        ].map(async (locator) => (await locator.boundingBox())!),
      );
      const [field, select, button] = boxes;
      // One height for all three.
      expect(Math.abs(field.height - select.height)).toBeLessThanOrEqual(1);
      expect(Math.abs(field.height - button.height)).toBeLessThanOrEqual(1);
      if (size.name === "desktop") {
        // One row: the same top edge.
        expect(Math.abs(field.y - select.y)).toBeLessThanOrEqual(1);
        expect(Math.abs(field.y - button.y)).toBeLessThanOrEqual(1);
      } else {
        // A column of full-width fields, within the screen.
        expect(Math.abs(field.x - select.x)).toBeLessThanOrEqual(1);
        expect(Math.abs(field.width - select.width)).toBeLessThanOrEqual(1);
        expect(field.x + field.width).toBeLessThanOrEqual(size.width);
        expect(field.width).toBeGreaterThan(size.width * 0.75);
      }
      await expectNoAxeViolations(page, `tools (${size.name})`);
    });

    test('a tool form\'s "Fill in…" error goes once the field is filled', async ({ page, newAccount }) => {
      await signIn(page, await newAccount());
      await page.goto("/tools/translate");
      await page.getByLabel("Text to translate").fill("Good morning");
      await page.getByRole("button", { name: "Start chat" }).click();
      const error = page.getByText("Fill in “Translate into”.");
      await expect(error).toBeVisible();
      const field = page.getByLabel("Translate into");
      await expect(field).toHaveAttribute("aria-invalid", "true");
      await field.fill("French");
      await expect(error).toHaveCount(0);
      await expect(field).not.toHaveAttribute("aria-invalid", "true");
      // Emptied again: the error is true again.
      await field.fill("");
      await expect(error).toBeVisible();
      await expect(page.getByLabel("Text to translate")).toHaveValue("Good morning");
    });
  });
}

test.describe("times in the reader's time zone", () => {
  test.use({ timezoneId: "Asia/Tokyo" });

  for (const size of SIZES) {
    test(`the dashboard shows Tokyo time, keeps UTC in dateTime, no hydration warning (${size.name})`, async ({
      page,
      newAccount,
    }) => {
      await page.setViewportSize({ width: size.width, height: size.height });
      const problems = watchHydration(page);
      await signIn(page, await newAccount());
      await page.goto("/dashboard");
      const account = page.getByRole("region", { name: "Account" });
      const since = account
        .getByRole("definition")
        .filter({ has: page.locator("time") })
        .first();
      await expect(since).toHaveText(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2} GMT\+9$/);
      // The machine-readable value stays UTC.
      await expect(since.locator("time")).toHaveAttribute("dateTime", /Z$/);
      // The quota resets at UTC midnight: 09:00 in Tokyo.
      await expect(
        page.getByRole("region", { name: "Usage" }).getByText(/The count resets at \d+ \w+ \d{4}, 09:00 GMT\+9/),
      ).toBeVisible();
      expect(problems).toEqual([]);
    });
  }
});
