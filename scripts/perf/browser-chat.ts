import fs from "node:fs";
import { chromium, type Page } from "@playwright/test";
import type { ModelServer } from "../../tests/support/model-server";
import { isModelToken, readStream } from "./app-under-test";

/**
 * What a person at the assistant page feels, measured in Chromium (ADR 051):
 * the time from pressing Enter to the reply's first word on screen, and the
 * browser's long tasks (main-thread work over 50 ms, which delays typing and
 * scrolling) while a 1,000-word reply streams in. For comparison, the first
 * token straight from the scripted model server, timed from this process.
 */

export interface BrowserChatFigures {
  runs: number;
  /** Median ms from the Enter keydown to the next frame after the first reply word is in the page. */
  enterToFirstTokenMs: number;
  /** Medians from Enter: the browser sent POST /api/chat, and its response began (headers). */
  requestSentMs: number;
  responseStartMs: number;
  /** Median ms to the first token of the same reply, straight from the model server. */
  directFirstTokenMs: number;
  /** Long tasks are those over 50 ms, by the browser's own definition. */
  longReply: {
    words: number;
    chunkDelayMs: number;
    streamMs: number;
    longTasks: number;
    maxMs: number;
    totalMs: number;
  };
}

const SYSTEM_CHROMIUM = "/usr/bin/chromium";
const FIRST_WORD = "Quokka";
const LAST_WORD = "Finis";

function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** About `words` words in paragraphs and a list, as a long answer is written. */
export function longReply(words: number): string {
  const out: string[] = [FIRST_WORD];
  const paragraphs: string[] = [];
  for (let i = 1; i < words - 1; i++) {
    out.push(i % 17 === 0 ? `**word${i}**` : `word${i}`);
    if (i % 80 === 0) {
      paragraphs.push(out.join(" "));
      out.length = 0;
      paragraphs.push(`- item ${i}\n- item ${i + 1}`);
    } else if (i % 40 === 0) {
      paragraphs.push(out.join(" "));
      out.length = 0;
    }
  }
  out.push(LAST_WORD);
  paragraphs.push(out.join(" "));
  return paragraphs.join("\n\n");
}

/** Opens a new chat and waits until the composer is live (the page hydrated). */
async function openChat(page: Page, baseUrl: string) {
  await page.goto(`${baseUrl}/nuvara`);
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("Tell me something");
  const send = page.getByRole("button", { name: "Send", exact: true });
  await send.waitFor({ state: "visible" });
  while (!(await send.isEnabled())) await page.waitForTimeout(25);
  return box;
}

/** In the page: when Enter goes down, and the frame after `word` first appears in a reply. */
async function watchFirstWord(page: Page, word: string) {
  await page.evaluate((word) => {
    const timing: { enter?: number; first?: number; requestStart?: number; responseStart?: number } = {};
    (window as unknown as { __timing: typeof timing }).__timing = timing;
    document.addEventListener(
      "keydown",
      (event) => {
        if (event.key === "Enter" && timing.enter === undefined) timing.enter = performance.now();
      },
      true,
    );
    const observer = new MutationObserver(() => {
      const replies = document.querySelectorAll('article[aria-label="Assistant"]');
      for (const reply of replies) {
        if (!reply.textContent?.includes(word)) continue;
        observer.disconnect();
        requestAnimationFrame(() => (timing.first = performance.now()));
        return;
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    // Where the time goes: when the browser sent POST /api/chat, and when its response began.
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
        if (!entry.name.endsWith("/api/chat") || timing.requestStart !== undefined) continue;
        timing.requestStart = entry.requestStart;
        timing.responseStart = entry.responseStart;
      }
    }).observe({ type: "resource" });
  }, word);
}

export async function measureBrowserChat({
  baseUrl,
  cookie,
  model,
  runs = 7,
  words = 1000,
  chunkDelayMs = 10,
}: {
  baseUrl: string;
  /** A signed-in session, "name=value". */
  cookie: string;
  model: ModelServer;
  runs?: number;
  words?: number;
  chunkDelayMs?: number;
}): Promise<BrowserChatFigures> {
  const browser = await chromium.launch({
    executablePath: fs.existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const [name, ...value] = cookie.split("=");
    await context.addCookies([{ name, value: value.join("="), url: baseUrl }]);
    const page = await context.newPage();
    const shortReply = `${FIRST_WORD} ${Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ")}`;

    const viaApp: number[] = [];
    const sent: number[] = [];
    const responded: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < runs; i++) {
      const box = await openChat(page, baseUrl);
      await watchFirstWord(page, FIRST_WORD);
      model.enqueue({ type: "text", text: shortReply });
      await box.press("Enter");
      await page.waitForFunction(
        () => (window as unknown as { __timing: { first?: number } }).__timing.first !== undefined,
        null,
        { timeout: 30_000 },
      );
      // Let the reply finish and be saved before the next run (its resource timing is written once it ends).
      await page.getByRole("button", { name: "Send", exact: true }).waitFor({ timeout: 30_000 });
      await page.waitForFunction(
        () => (window as unknown as { __timing: { requestStart?: number } }).__timing.requestStart !== undefined,
        null,
        { timeout: 30_000 },
      );
      const timing = await page.evaluate(
        () =>
          (
            window as unknown as {
              __timing: { enter: number; first: number; requestStart: number; responseStart: number };
            }
          ).__timing,
      );
      viaApp.push(timing.first - timing.enter);
      sent.push(timing.requestStart - timing.enter);
      responded.push(timing.responseStart - timing.enter);

      model.enqueue({ type: "text", text: shortReply });
      const started = performance.now();
      const response = await fetch(`${model.url}/chat/completions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          model: "bench-model",
          stream: true,
          messages: [{ role: "user", content: "Tell me something" }],
        }),
      });
      direct.push((await readStream(response, isModelToken, started)).firstTokenMs);
    }

    // The long reply: long tasks counted from Enter until its last word is on screen.
    const box = await openChat(page, baseUrl);
    await page.evaluate(() => {
      const tasks: number[] = [];
      (window as unknown as { __longTasks: number[] }).__longTasks = tasks;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) tasks.push(entry.duration);
      }).observe({ type: "longtask" });
    });
    model.enqueue({ type: "text", text: longReply(words), chunkDelayMs });
    const started = performance.now();
    await box.press("Enter");
    await page.waitForFunction(
      (word) =>
        [...document.querySelectorAll('article[aria-label="Assistant"]')].some((reply) =>
          reply.textContent?.includes(word),
        ),
      LAST_WORD,
      { timeout: 120_000, polling: "raf" },
    );
    const streamMs = performance.now() - started;
    const tasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
    await context.close();
    return {
      runs,
      enterToFirstTokenMs: median(viaApp),
      requestSentMs: median(sent),
      responseStartMs: median(responded),
      directFirstTokenMs: median(direct),
      longReply: {
        words,
        chunkDelayMs,
        streamMs,
        longTasks: tasks.length,
        maxMs: Math.max(0, ...tasks),
        totalMs: tasks.reduce((sum, ms) => sum + ms, 0),
      },
    };
  } finally {
    await browser.close();
  }
}
