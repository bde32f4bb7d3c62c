import { expect, signIn, test, env } from "./fixtures";
import { markdownReply, REPLY_LAST_WORD } from "../support/markdown-reply";
import { composer, replies, scriptedModel } from "./assistant-support";

test.beforeEach(async () => {
  await scriptedModel.reset();
});

/**
 * Reads POST /api/chat of the running app (remix-serve, with its compression
 * middleware) as a browser would, with gzip accepted, and times each piece.
 */
test("the reply reaches the browser in pieces as the model writes them, not buffered", async ({ page, newAccount }) => {
  await signIn(page, await newAccount());
  const cookies = await page.context().cookies();
  const cookie = cookies.map(({ name, value }) => `${name}=${value}`).join("; ");
  const words = ["one ", "two ", "three ", "four ", "five ", "six"];
  await scriptedModel.enqueue({ type: "text", text: words, chunkDelayMs: 300 });

  const started = Date.now();
  const response = await fetch(`${env.baseURL}/api/chat`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "Accept-Encoding": "gzip, deflate, br",
      Origin: env.baseURL,
      Cookie: cookie,
    },
    body: JSON.stringify({
      conversationId: crypto.randomUUID(),
      create: true,
      message: { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: "Count to six" }] },
      model: "test-model",
    }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  expect(response.headers.get("content-encoding")).toBeNull();
  expect(response.headers.get("cache-control")).toContain("no-transform");
  expect(response.headers.get("x-accel-buffering")).toBe("no");

  // When each word arrived, in ms since the request.
  const arrivals = new Map<string, number>();
  const decoder = new TextDecoder();
  let text = "";
  for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(piece, { stream: true });
    for (const word of words) {
      if (!arrivals.has(word) && text.includes(`"delta":${JSON.stringify(word)}`))
        arrivals.set(word, Date.now() - started);
    }
  }
  expect([...arrivals.keys()]).toEqual(words);
  const times = words.map((word) => arrivals.get(word)!);
  // The first word arrives long before the last (the model takes 6 × 300 ms);
  // buffering would deliver them all at once at the end.
  expect(times[5] - times[0]).toBeGreaterThan(1_000);
  for (let i = 1; i < times.length; i += 1) expect(times[i] - times[i - 1]).toBeGreaterThan(150);
  expect(text).toContain('"type":"data-saved"');
});

/**
 * A long Markdown reply (headings, lists, a table, code, math) streaming at
 * 45 tokens/s keeps the page responsive (ADR 082): only the block being
 * written is parsed again, and it is shown as often as the page renders it
 * with ease. The bound is loose, for a loaded 2-core test machine (the targets
 * are in `npm run bench -- --stream`): re-parsing the whole reply on every
 * update blocked the page for up to 500 ms at a time.
 */
test("a long Markdown reply streams without blocking the page", async ({ page, newAccount, cpuSlowdown }) => {
  test.setTimeout(120_000);
  await signIn(page, await newAccount());
  await page.goto("/nuvara");
  const { box, send } = composer(page);
  await box.fill("Write me a long answer");
  await expect(send).toBeEnabled({ timeout: 20_000 });
  await page.evaluate(() => {
    const tasks: number[] = [];
    (window as unknown as { __longTasks: number[] }).__longTasks = tasks;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(entry.duration);
    }).observe({ type: "longtask" });
  });
  await scriptedModel.enqueue({ type: "text", text: markdownReply(600), chunkDelayMs: 22 });
  await box.press("Enter");
  const reply = replies(page).last();
  await expect(reply.getByRole("button", { name: "Copy reply" })).toBeVisible({ timeout: 90_000 });
  await expect(reply).toContainText(REPLY_LAST_WORD);
  // Finished blocks show their math and highlighted code.
  await expect(reply.locator("math").first()).toBeVisible();
  await expect(reply.locator("code.hljs").first()).toBeVisible();
  const longest = await page.evaluate(
    () =>
      new Promise<number>((resolve) =>
        requestIdleCallback(
          () => resolve(Math.max(0, ...(window as unknown as { __longTasks: number[] }).__longTasks)),
          {
            timeout: 5_000,
          },
        ),
      ),
  );
  expect(longest).toBeLessThan(400 * cpuSlowdown);
});
