/**
 * The wait of a reply's run for a person's answer — an approval card
 * (docs/decisions/091) or a server's request for input (docs/decisions/095).
 * The answer is written to PostgreSQL by whichever tab, device or instance
 * took it; the wait reads it at once when it was taken on this instance
 * (the endpoint wakes it), else within a poll. The deadline, or the reply's
 * end (Stop, shutdown), closes the question unanswered — an answer that
 * arrived in the same moment wins.
 */

const POLL_MS = 500;

export interface AnswerWait<T> {
  /** The question's id: what the endpoint that takes the answer wakes. */
  id: string;
  /** When the question closes unanswered (ms since the epoch). */
  deadline: number;
  signal?: AbortSignal;
  /** The answer once given; undefined while the question is open. */
  read(): Promise<T | undefined>;
  /** Closes the question unanswered; resolves to the answer if one was taken meanwhile. */
  close(why: "expired" | "cancelled"): Promise<T>;
}

/** The waits on this instance, woken when the answer is taken here. */
const waiting = new Map<string, () => void>();

export function wakeAnswerWait(id: string) {
  waiting.get(id)?.();
}

export async function waitForAnswer<T>(wait: AnswerWait<T>): Promise<T> {
  for (;;) {
    if (wait.signal?.aborted) return wait.close("cancelled");
    if (Date.now() >= wait.deadline) return wait.close("expired");
    // Listening before reading: an answer taken while the read is under way still wakes this wait.
    const look = nextLook(wait.id, Math.min(POLL_MS, wait.deadline - Date.now()), wait.signal);
    const answer = await wait.read();
    if (answer !== undefined) {
      look.cancel();
      return answer;
    }
    await look.done;
  }
}

function nextLook(id: string, ms: number, signal: AbortSignal | undefined) {
  let finish = () => undefined as void;
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(() => finish(), Math.max(0, ms));
    finish = () => {
      clearTimeout(timer);
      if (waiting.get(id) === finish) waiting.delete(id);
      signal?.removeEventListener("abort", finish);
      resolve();
    };
    waiting.set(id, finish);
    signal?.addEventListener("abort", finish, { once: true });
  });
  return { done, cancel: () => finish() };
}
