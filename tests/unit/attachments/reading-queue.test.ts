import { describe, expect, it } from "vitest";
import { ReadingQueue, type ReadingQueueBounds } from "~/attachments/reading-queue.server";

/**
 * The reading queue's turns, with reads that end when the test says: which
 * document starts when, and which are refused at once.
 */

const BOUNDS: ReadingQueueBounds = { parallel: 2, perAccount: 10, maxWaiting: 32, maxWaitingBytes: 1000 };

function harness(bounds: Partial<ReadingQueueBounds> = {}) {
  const queue = new ReadingQueue({ ...BOUNDS, ...bounds });
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  /** Queues document `id` of `account`; its read starts (is logged) and waits until finish(id). */
  const submit = (account: string, id: string, bytes = 1) =>
    queue.run(account, bytes, () => {
      started.push(id);
      return new Promise<string>((resolve) => finishers.set(id, () => resolve(id)));
    });
  const finish = async (id: string) => {
    finishers.get(id)!();
    // Let the queue hand the reader on.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, started, submit, finish };
}

describe("ReadingQueue", () => {
  it("reads one document at a time per account, even with a reader free", async () => {
    const { started, submit, finish } = harness();
    const first = submit("a", "a1");
    const second = submit("a", "a2");
    await Promise.resolve();
    expect(started).toEqual(["a1"]);
    await finish("a1");
    expect(await first).toEqual({ ok: true, value: "a1" });
    expect(started).toEqual(["a1", "a2"]);
    await finish("a2");
    expect(await second).toEqual({ ok: true, value: "a2" });
  });

  it("gives another account the second reader at once, however many of the first account's wait", async () => {
    const { started, submit } = harness();
    for (const id of ["a1", "a2", "a3", "a4"]) void submit("a", id);
    void submit("b", "b1");
    await Promise.resolve();
    expect(started).toEqual(["a1", "b1"]);
  });

  it("hands a free reader to the account served least recently, not to the one that queued first", async () => {
    const { started, submit, finish } = harness({ parallel: 1 });
    for (const id of ["a1", "a2", "a3"]) void submit("a", id);
    void submit("b", "b1");
    void submit("b", "b2");
    void submit("c", "c1");
    await Promise.resolve();
    expect(started).toEqual(["a1"]);
    for (const id of ["a1", "b1", "c1", "a2", "b2"]) await finish(id);
    expect(started).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
  });

  it("refuses an account's document past its share, at once", async () => {
    const { started, submit } = harness({ perAccount: 3 });
    for (const id of ["a1", "a2", "a3"]) void submit("a", id);
    expect(await submit("a", "a4")).toEqual({ ok: false, refusal: "account-busy" });
    void submit("b", "b1");
    await Promise.resolve();
    expect(started).toEqual(["a1", "b1"]);
  });

  it("refuses when the waiting documents reach their number or their bytes, and takes more once one is read", async () => {
    const { started, submit, finish } = harness({ parallel: 1, maxWaiting: 2, maxWaitingBytes: 100 });
    void submit("a", "a1");
    void submit("b", "b1", 10);
    void submit("c", "c1", 10);
    expect(await submit("d", "d1", 10)).toEqual({ ok: false, refusal: "full" });
    await finish("a1");
    expect(started).toEqual(["a1", "b1"]);
    expect(await submit("e", "e1", 95)).toEqual({ ok: false, refusal: "full" });
    void submit("e", "e2", 90);
    await finish("b1");
    await finish("c1");
    expect(started).toEqual(["a1", "b1", "c1", "e2"]);
  });

  it("frees the reader when a read fails", async () => {
    const queue = new ReadingQueue({ ...BOUNDS, parallel: 1 });
    await expect(queue.run("a", 1, () => Promise.reject(new Error("broken")))).rejects.toThrow("broken");
    expect(await queue.run("a", 1, () => Promise.resolve("next"))).toEqual({ ok: true, value: "next" });
  });
});
