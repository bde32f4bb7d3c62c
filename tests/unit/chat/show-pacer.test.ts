import { describe, expect, it } from "vitest";
import { COST_FACTOR, MAX_GAP_MS, MIN_GAP_MS, ShowPacer } from "~/components/chat/show-pacer";

/** A streaming reply is shown as often as the device renders it with ease (ADR 082). */

function harness(renderMs: number) {
  let now = 0;
  const scheduled: Array<{ at: number; run: () => void; cancelled: boolean }> = [];
  const shownAt: number[] = [];
  const pacer = new ShowPacer(
    () => {
      shownAt.push(now);
      now += renderMs;
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
});
