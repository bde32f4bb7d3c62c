import { describe, expect, it } from "vitest";
import { COST_FACTOR, MAX_GAP_MS, MIN_GAP_MS, replyShown, ShowPacer } from "~/components/chat/show-pacer";

/** A streaming reply is shown as often as the device renders it with ease (ADR 082). */

/** `newText`: each render changes the reply's text, which the page then shows in the background (replyShown). */
function harness(renderMs: number, { newText = false } = {}) {
  let now = 0;
  const scheduled: Array<{ at: number; run: () => void; cancelled: boolean }> = [];
  const shownAt: number[] = [];
  const pacer = new ShowPacer(
    () => {
      shownAt.push(now);
      now += renderMs;
      return newText;
    },
    (run, delayMs) => {
      const entry = { at: now + delayMs, run, cancelled: false };
      scheduled.push(entry);
      return () => void (entry.cancelled = true);
    },
    () => now,
  );
  /** Advances the clock to `to`, running what is due (and the microtasks after each). */
  async function advance(to: number) {
    for (;;) {
      const due = scheduled.filter((entry) => !entry.cancelled && entry.at <= to).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.cancelled = true;
      now = Math.max(now, due.at);
      due.run();
      await Promise.resolve();
    }
    now = Math.max(now, to);
  }
  return { pacer, shownAt, advance };
}

/** A word every 20 ms for two seconds. */
async function stream(renderMs: number) {
  const { pacer, shownAt, advance } = harness(renderMs);
  for (let t = 0; t < 2_000; t += 20) {
    await advance(t);
    pacer.request();
  }
  await advance(2_000);
  pacer.flush();
  return { shownAt, gap: pacer.gapMs };
}

describe("how often a streaming reply is shown", () => {
  it("a fast device shows new words every 50 ms, not every word", async () => {
    const { shownAt } = await stream(2);
    expect(shownAt.length).toBeGreaterThan(2_000 / (MIN_GAP_MS + 20) - 2);
    expect(shownAt.length).toBeLessThanOrEqual(2_000 / MIN_GAP_MS + 1);
  });

  it("a slow device renders less often, leaving most of the time free", async () => {
    const renderMs = 60;
    const { shownAt, gap } = await stream(renderMs);
    expect(gap).toBe(renderMs * COST_FACTOR);
    const busy = shownAt.length * renderMs;
    expect(busy / 2_000).toBeLessThan(1 / COST_FACTOR + 0.05);
    expect(shownAt.length).toBeGreaterThan(3);
  });

  it("however slow the render, the text still moves at least once a second", async () => {
    const { gap } = await stream(900);
    expect(gap).toBe(MAX_GAP_MS);
  });

  it("flush shows what waits at once, and nothing when nothing waits", async () => {
    const { pacer, shownAt, advance } = harness(1);
    pacer.request();
    expect(pacer.pending).toBe(true);
    pacer.flush();
    expect(shownAt).toEqual([0]);
    pacer.flush();
    await advance(1_000);
    expect(shownAt).toEqual([0]);
  });

  it("after a render of new text, nothing newer is rendered until the page shows it, and the wait counts as its cost", async () => {
    const { pacer, shownAt, advance } = harness(5, { newText: true });
    pacer.request();
    await advance(0);
    expect(shownAt).toEqual([0]);
    // Words keep arriving while the page renders the text in the background: they wait.
    for (let t = 20; t <= 200; t += 20) {
      await advance(t);
      pacer.request();
    }
    expect(shownAt).toEqual([0]);
    // The page shows it at 200 ms: the next render waits three times that long, then shows all that arrived.
    replyShown();
    expect(pacer.gapMs).toBe(200 * COST_FACTOR);
    await advance(799);
    expect(shownAt).toEqual([0]);
    await advance(800);
    expect(shownAt).toEqual([0, 800]);
  });

  it("a page that never says it showed the text holds the reply back for at most a second", async () => {
    const { pacer, shownAt, advance } = harness(5, { newText: true });
    pacer.request();
    await advance(0);
    pacer.request();
    // The render took 5 ms; a second later the pacer stops waiting, and renders after the shortest gap.
    await advance(2_000);
    expect(shownAt).toEqual([0, 5 + MAX_GAP_MS + MIN_GAP_MS]);
    pacer.stop();
  });

  it("flush does not wait for the page", async () => {
    const { pacer, shownAt, advance } = harness(5, { newText: true });
    pacer.request();
    await advance(0);
    pacer.request();
    pacer.flush();
    expect(shownAt).toEqual([0, 5]);
    pacer.stop();
  });
});
