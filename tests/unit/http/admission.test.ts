import { afterEach, describe, expect, it, vi } from "vitest";
import { parseConfig } from "~/config.server";
import { AdmissionLimit, admissionRefusal } from "~/http/admission.server";
import { metrics } from "~/metrics/metrics.server";

/**
 * The per-instance admission limit (docs/decisions/096): how many slots it
 * gives, that every way of giving one back frees exactly one, and what a
 * refused request receives.
 */

let names = 0;
/** A limit with a name of its own, so its metrics start at zero. */
function limitOf(capacity: number | (() => number)) {
  const name = `test_admission_${++names}`;
  return new AdmissionLimit(name, typeof capacity === "number" ? () => capacity : capacity);
}

async function refusalsCounted(limit: AdmissionLimit): Promise<number> {
  const { values } = await metrics().refusals.get();
  return values.find((value) => value.labels.limit === limit.name)?.value ?? 0;
}

async function inUseShown(limit: AdmissionLimit): Promise<number | undefined> {
  const { values } = await metrics().admissionInUse.get();
  return values.find((value) => value.labels.limit === limit.name)?.value;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("AdmissionLimit", () => {
  it("admits up to its capacity, refuses the next at once and counts the refusal", async () => {
    const limit = limitOf(2);
    const first = limit.tryEnter();
    const second = limit.tryEnter();
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(limit.tryEnter()).toBeUndefined();
    expect(limit.tryEnter()).toBeUndefined();
    expect(limit.inUse).toBe(2);
    expect(await refusalsCounted(limit)).toBe(2);
    expect(await inUseShown(limit)).toBe(2);
  });

  it("a released slot admits the next request; releasing twice frees one slot only", async () => {
    const limit = limitOf(1);
    const slot = limit.tryEnter()!;
    slot.release();
    slot.release();
    expect(limit.inUse).toBe(0);
    expect(await inUseShown(limit)).toBe(0);
    const next = limit.tryEnter();
    expect(next).toBeDefined();
    expect(limit.tryEnter()).toBeUndefined();
  });

  it("releaseAfter gives the slot back when the promise resolves", async () => {
    const limit = limitOf(1);
    let resolve!: () => void;
    limit.tryEnter()!.releaseAfter(new Promise<void>((done) => (resolve = done)), 60_000);
    await Promise.resolve();
    expect(limit.inUse).toBe(1);
    resolve();
    await vi.waitFor(() => expect(limit.inUse).toBe(0));
  });

  it("releaseAfter gives the slot back when the promise rejects", async () => {
    const limit = limitOf(1);
    let reject!: (error: Error) => void;
    limit.tryEnter()!.releaseAfter(new Promise<void>((_, fail) => (reject = fail)), 60_000);
    reject(new Error("the store failed"));
    await vi.waitFor(() => expect(limit.inUse).toBe(0));
  });

  it("releaseAfter gives the slot back after its bound when the promise never settles", () => {
    vi.useFakeTimers();
    const limit = limitOf(1);
    limit.tryEnter()!.releaseAfter(new Promise(() => undefined), 5_000);
    vi.advanceTimersByTime(4_999);
    expect(limit.inUse).toBe(1);
    vi.advanceTimersByTime(1);
    expect(limit.inUse).toBe(0);
  });

  it("a slot released at once and again when its promise settles frees one slot only", async () => {
    const limit = limitOf(2);
    const held = limit.tryEnter()!;
    limit.tryEnter();
    held.releaseAfter(Promise.resolve(), 60_000);
    held.release();
    await vi.waitFor(() => expect(limit.inUse).toBe(1));
    await Promise.resolve();
    expect(limit.inUse).toBe(1);
  });

  it("reads its capacity at each admission: a lower one refuses until enough slots are back", () => {
    let capacity = 3;
    const limit = limitOf(() => capacity);
    const slots = [limit.tryEnter()!, limit.tryEnter()!, limit.tryEnter()!];
    capacity = 1;
    slots[0].release();
    expect(limit.tryEnter()).toBeUndefined();
    slots[1].release();
    slots[2].release();
    expect(limit.tryEnter()).toBeDefined();
  });
});

describe("admissionRefusal", () => {
  it("is a 503 with Retry-After and the endpoints' JSON error", async () => {
    const response = admissionRefusal("Busy, try again in a moment.");
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toMatch(/^[234]$/);
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: "Busy, try again in a moment." });
  });

  it("spreads Retry-After over 2 to 4 seconds, so refused clients do not come back together", () => {
    const seen = new Set<string | null>();
    for (let i = 0; i < 300; i++) seen.add(admissionRefusal("Busy.").headers.get("Retry-After"));
    expect([...seen].sort()).toEqual(["2", "3", "4"]);
  });
});

describe("CHAT_ADMISSION_LIMIT and UPLOAD_ADMISSION_LIMIT", () => {
  const env = (vars: Record<string, string>) => ({ NODE_ENV: "test", ...vars }) as NodeJS.ProcessEnv;

  it("default to 16 sends and 32 uploads an instance", () => {
    expect(parseConfig(env({})).admission).toEqual({ chatSends: 16, uploads: 32 });
    expect(parseConfig(env({ CHAT_ADMISSION_LIMIT: " ", UPLOAD_ADMISSION_LIMIT: "" })).admission).toEqual({
      chatSends: 16,
      uploads: 32,
    });
  });

  it("take whole numbers from 1 to 10000", () => {
    expect(parseConfig(env({ CHAT_ADMISSION_LIMIT: "1", UPLOAD_ADMISSION_LIMIT: "10000" })).admission).toEqual({
      chatSends: 1,
      uploads: 10_000,
    });
    for (const bad of ["0", "-1", "2.5", "10001", "many"]) {
      expect(() => parseConfig(env({ CHAT_ADMISSION_LIMIT: bad })), bad).toThrow(/CHAT_ADMISSION_LIMIT/);
      expect(() => parseConfig(env({ UPLOAD_ADMISSION_LIMIT: bad })), bad).toThrow(/UPLOAD_ADMISSION_LIMIT/);
    }
  });
});
