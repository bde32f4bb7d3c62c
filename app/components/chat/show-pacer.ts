/**
 * How often a streaming reply is shown again (ADR 082). Text arrives a word
 * at a time, far more often than it is worth rendering; rendering on every
 * word would keep a slow device's main thread busy and make typing, scrolling
 * and Stop lag.
 *
 * Each render is timed, and the next waits at least a few times as long: a
 * device that renders in 5 ms shows new words every 50 ms, one that takes
 * 40 ms every 160 ms, so the page always has most of its time free. Renders
 * happen in an animation frame, just before the browser paints, so one
 * frame's layout covers them.
 *
 * A render that changed the reply's text is timed until that text is on the
 * page: the reply's Markdown renders in the background (./markdown.tsx defers
 * it) and says so with replyShown(). Until then nothing newer is rendered:
 * newer text would only throw that background work away and start it again,
 * which on a slow device is most of what it would do.
 */

/** Never more often than this (ms): words still appear to flow. */
export const MIN_GAP_MS = 50;
/** Never less often than this (ms), however slow the render. */
export const MAX_GAP_MS = 1_000;
/** The wait after a render, as a multiple of the time it took: rendering takes at most 1/(1 + 3) of the time. */
export const COST_FACTOR = 3;

/** The name of each render's performance.measure entry. */
export const REPLY_RENDER_MEASURE = "nuvara:reply-render";

type Schedule = (run: () => void, delayMs: number) => () => void;

/** How the waiting pacer hears that the page shows its render (one reply streams at a time). */
let onReplyShown: (() => void) | undefined;

/** The streaming reply's newest text is on the page (called by ./markdown.tsx once it has committed it). */
export function replyShown(): void {
  const heard = onReplyShown;
  onReplyShown = undefined;
  heard?.();
}

/** A timer, then the next animation frame where there are frames (a browser tab), else the timer alone. */
const inNextFrame: Schedule = (run, delayMs) => {
  let frame: number | undefined;
  const timer = setTimeout(() => {
    const visible = typeof document === "undefined" || document.visibilityState === "visible";
    // A hidden tab gets no frames: show at once there, so the text is ready when it is seen.
    if (typeof requestAnimationFrame === "function" && visible) frame = requestAnimationFrame(run);
    else run();
  }, delayMs);
  return () => {
    clearTimeout(timer);
    if (frame !== undefined) cancelAnimationFrame(frame);
  };
};

export class ShowPacer {
  /** When the last render ended (ms, performance.now()). */
  private lastEnd = Number.NEGATIVE_INFINITY;
  /** The recent render time, smoothed. */
  private cost = 0;
  private cancel: (() => void) | undefined;
  /** Waiting for the page to show the last render: cancels that wait. */
  private cancelWait: (() => void) | undefined;
  /** Something new arrived while waiting. */
  private wanted = false;

  /**
   * `render` shows the reply as it is now; it returns true when it changed
   * the reply's text, which the page then renders in the background and
   * reports with replyShown().
   */
  constructor(
    private readonly render: () => boolean | void,
    private readonly schedule: Schedule = inNextFrame,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The wait after a render (ms) before the next. */
  get gapMs(): number {
    return Math.min(MAX_GAP_MS, Math.max(MIN_GAP_MS, this.cost * COST_FACTOR));
  }

  /** Whether a render is waiting for its turn. */
  get pending(): boolean {
    return this.cancel !== undefined || this.wanted;
  }

  /** There is something new to show: shown in the next frame once the last render is far enough behind. */
  request(): void {
    if (this.cancel) return;
    if (this.cancelWait) {
      this.wanted = true;
      return;
    }
    const wait = Math.max(0, this.lastEnd + this.gapMs - this.now());
    this.cancel = this.schedule(() => {
      this.cancel = undefined;
      this.show();
    }, wait);
  }

  /** Shows now what is waiting (the stream ended, or what follows needs the reply up to date). */
  flush(): void {
    if (!this.pending) return;
    this.stop();
    this.show();
  }

  /** Drops what is waiting. */
  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.cancelWait?.();
    this.wanted = false;
  }

  private show() {
    const started = this.now();
    if (this.render() === true) this.waitUntilShown(started);
    // React renders a store's change in a microtask queued during render(): this one runs after it.
    else queueMicrotask(() => this.rendered(started, this.now()));
  }

  /** Waits for replyShown(), at most MAX_GAP_MS (a reply the page does not render as Markdown never says so). */
  private waitUntilShown(started: number) {
    const end = (heard: boolean) => {
      release();
      const ended = this.now();
      if (heard) this.rendered(started, ended);
      else this.lastEnd = ended;
      if (this.wanted) {
        this.wanted = false;
        this.request();
      }
    };
    const listener = () => end(true);
    onReplyShown = listener;
    const cancelTimer = this.schedule(() => end(false), MAX_GAP_MS);
    // Once released, neither the page nor the timer can end this wait again.
    const release = () => {
      cancelTimer();
      if (onReplyShown === listener) onReplyShown = undefined;
      this.cancelWait = undefined;
    };
    this.cancelWait = release;
  }

  private rendered(started: number, ended: number) {
    const took = ended - started;
    this.cost = this.cost === 0 ? took : (this.cost + took) / 2;
    this.lastEnd = ended;
    // For the streaming benchmark (scripts/perf/stream-markdown.ts) and the browser's performance panel.
    if (typeof performance !== "undefined" && typeof performance.measure === "function")
      performance.measure(REPLY_RENDER_MEASURE, { start: started, end: ended });
  }
}
