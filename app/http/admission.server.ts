import { json } from "@remix-run/node";
import { countRefusal, showAdmissionInUse } from "~/metrics/metrics.server";

/**
 * How many requests of one kind this instance admits at once
 * (docs/decisions/096). Past the limit a request is refused at once, before
 * it makes any backend call: under overload the backends' deadlines would
 * otherwise fire for every request alike, and the instance would spend its
 * capacity on requests it then refuses. A refusal costs no I/O, so refusing
 * the excess keeps the admitted requests as fast as at the limit.
 *
 * Per process: each instance counts its own, like the metrics (nothing is
 * shared through PostgreSQL, which is what is being protected).
 */
export interface AdmissionSlot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void;
  /**
   * Gives the slot back once `settled` settles, whether it resolves or
   * rejects, and after `atMostMs` in any case: a promise that never settles
   * must not keep a slot for good.
   */
  releaseAfter(settled: Promise<unknown>, atMostMs: number): void;
}

export class AdmissionLimit {
  private held = 0;

  /**
   * `name` labels the refusals and the slots in use on /metrics;
   * `capacity` is read at each admission, so a test's changed configuration applies.
   */
  constructor(
    readonly name: string,
    private readonly capacity: () => number,
  ) {}

  /** Requests admitted and not yet released. */
  get inUse(): number {
    return this.held;
  }

  /** A slot, or undefined (the refusal counted) when every slot is taken. */
  tryEnter(): AdmissionSlot | undefined {
    if (this.held >= this.capacity()) {
      countRefusal(this.name);
      return undefined;
    }
    this.held += 1;
    showAdmissionInUse(this.name, this.held);
    return this.slot();
  }

  private slot(): AdmissionSlot {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.held -= 1;
      showAdmissionInUse(this.name, this.held);
    };
    return {
      release,
      releaseAfter(settled, atMostMs) {
        const timer = setTimeout(release, atMostMs);
        timer.unref();
        const done = () => {
          clearTimeout(timer);
          release();
        };
        settled.then(done, done);
      },
    };
  }
}

/**
 * When a refused client is told to try again: 2 to 4 seconds, drawn at
 * random. A refusal is cheap but not free: told "1", clients at ten times the
 * capacity came back every second and the instance spent about a third of its
 * CPU refusing them (docs/decisions/096); spread over 2–4 s they come back
 * less often and not all in the same second.
 */
export const RETRY_AFTER_SECONDS = { least: 2, most: 4 };

/**
 * The refusal of a request over the limit: 503 with the endpoints' JSON
 * `{ error }` shape (the chat's composer and the upload chips show `error`
 * as it is) and when to try again.
 */
export function admissionRefusal(error: string): Response {
  const { least, most } = RETRY_AFTER_SECONDS;
  const retryAfter = least + Math.floor(Math.random() * (most - least + 1));
  return json({ error }, { status: 503, headers: { "Retry-After": String(retryAfter), "Cache-Control": "no-store" } });
}
