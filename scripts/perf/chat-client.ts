import type { SavedExchange } from "~/conversation/message-types";
import { isAppToken, readStream } from "./app-under-test";

/** One POST /api/chat as `npm run load` sends it, read to its end. */
export interface ChatAnswer {
  status: number;
  /** From the request to the response's headers (a refusal's whole answer). */
  headersMs: number;
  /** To the end of the body: the stream's last chunk, or the refusal's JSON. */
  totalMs: number;
  /** To the reply's first text; NaN without one. */
  firstTokenMs: number;
  retryAfter: string | null;
  /** A refusal's `error` (its body as text when it is not that JSON), or the stream's error chunk. */
  error?: string;
  /** The stored exchange the stream confirmed (its data-saved part). */
  saved?: SavedExchange;
}

/** Sends a chat body with the browser's same-origin headers; a network failure throws. */
export async function sendChat(baseUrl: string, cookie: string, body: string): Promise<ChatAnswer> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/chat`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: baseUrl,
      cookie,
      "sec-fetch-site": "same-origin",
      "sec-fetch-mode": "cors",
    },
    body,
  });
  const headersMs = performance.now() - started;
  const answer = { status: response.status, headersMs, retryAfter: response.headers.get("Retry-After") };
  if (!response.ok) {
    const text = await response.text();
    return { ...answer, totalMs: performance.now() - started, firstTokenMs: NaN, error: refusalError(text) };
  }
  let saved: SavedExchange | undefined;
  let error: string | undefined;
  const { firstTokenMs, totalMs } = await readStream(response, isAppToken, started, (line) => {
    if (!line.startsWith("data: {")) return;
    const chunk = JSON.parse(line.slice("data: ".length)) as { type: string; data?: unknown; errorText?: string };
    if (chunk.type === "data-saved") saved = chunk.data as SavedExchange;
    else if (chunk.type === "error") error = chunk.errorText;
  });
  return { ...answer, totalMs, firstTokenMs, error, saved };
}

function refusalError(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === "string") return body.error;
  } catch {
    // Not JSON: the text itself says what happened.
  }
  return text.slice(0, 200);
}

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split(
  " ",
);

/** `n` words of a small vocabulary, for messages the scripted model echoes. */
export const someWords = (n: number) =>
  Array.from({ length: n }, () => WORDS[Math.floor(Math.random() * WORDS.length)]).join(" ");
