import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { and, eq } from "drizzle-orm";
import { parseConversationEvent, type ConversationEvent } from "~/chat/live/conversation-event";
import { localRuns } from "~/chat/runs/runs.server";
import { getDb } from "~/db/client.server";
import { usageDaily } from "~/db/schema";
import { APP_ORIGIN, appRequest } from "../support/app-env";

/** Helpers for the chat tests: call POST /api/chat in-process and read its event stream. */

export interface ChatBody {
  conversationId: string;
  create?: boolean;
  message: { id: string; role: "user"; parts: Array<{ type: "text"; text: string }> };
  model: string;
  timeZone?: string;
}

export function newMessage(text: string, id: string = randomUUID()) {
  return { id, role: "user" as const, parts: [{ type: "text" as const, text }] };
}

export function firstMessage(text: string, model = "test-model"): ChatBody {
  return { conversationId: randomUUID(), create: true, message: newMessage(text), model };
}

export async function postChat(body: unknown, { cookie, signal }: { cookie?: string; signal?: AbortSignal } = {}) {
  const { action } = await import("~/routes/api.chat");
  const request = appRequest("/api/chat", {
    method: "POST",
    cookie,
    signal,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return action({ request, params: {}, context: {} }) as Promise<Response>;
}

/** POST /api/runs/stop: the Stop button, for the reply to `messageId`, wherever it is being written. */
export async function stopChat(messageId: string, { cookie }: { cookie?: string } = {}) {
  const { action } = await import("~/routes/api.runs.stop");
  const request = appRequest("/api/runs/stop", {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
    body: JSON.stringify({ messageId }),
  });
  return action({ request, params: {}, context: {} }) as Promise<Response>;
}

/** GET /api/runs/<id>: a reply being written, from its start (a reload, another tab). */
export async function readRun(runId: string, { cookie, signal }: { cookie?: string; signal?: AbortSignal } = {}) {
  const { loader } = await import("~/routes/api.runs.$runId");
  const request = appRequest(`/api/runs/${runId}`, { cookie, signal });
  return loader({ request, params: { runId }, context: {} }) as Promise<Response>;
}

/** Parses one server-sent events body into UI message chunks. */
export function parseEvents(text: string): UIMessageChunk[] {
  return text
    .split("\n\n")
    .map((event) => event.trim())
    .filter((event) => event.startsWith("data: ") && event !== "data: [DONE]")
    .map((event) => JSON.parse(event.slice("data: ".length)) as UIMessageChunk);
}

export async function readChunks(response: Response): Promise<UIMessageChunk[]> {
  return parseEvents(await response.text());
}

export function replyText(chunks: UIMessageChunk[]): string {
  return chunks.flatMap((chunk) => (chunk.type === "text-delta" ? [chunk.delta] : [])).join("");
}

export function chunkOfType<T extends UIMessageChunk["type"]>(chunks: UIMessageChunk[], type: T) {
  return chunks.find((chunk): chunk is Extract<UIMessageChunk, { type: T }> => chunk.type === type);
}

/** The data of the first `data-<name>` chunk. */
export function dataOf<T = Record<string, unknown>>(chunks: UIMessageChunk[], name: string): T | undefined {
  const chunk = chunks.find((candidate) => candidate.type === `data-${name}`);
  return chunk && "data" in chunk ? (chunk.data as T) : undefined;
}

/**
 * Reads a streamed response until `until` holds for the chunks so far; returns
 * them, the reader, and `rest()`, which reads on to the end and returns every chunk.
 */
export async function readUntil(response: Response, until: (chunks: UIMessageChunk[]) => boolean) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const chunks: UIMessageChunk[] = [];
  const readWhile = async (more: () => boolean) => {
    while (more()) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const cut = buffer.lastIndexOf("\n\n");
      if (cut === -1) continue;
      chunks.push(...parseEvents(buffer.slice(0, cut)));
      buffer = buffer.slice(cut + 2);
    }
  };
  await readWhile(() => !until(chunks));
  const rest = async () => {
    await readWhile(() => true);
    return [...chunks, ...parseEvents(buffer)];
  };
  return { chunks: [...chunks], reader, rest };
}

/** Reads a conversation list's event stream (GET /api/conversations/events) as its events come. */
export function followConversationEvents(response: Response) {
  const events: ConversationEvent[] = [];
  let ended = false;
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith("data: ")) events.push(parseConversationEvent(block.slice(6))!);
      }
    }
    ended = true;
  })();
  return { events, ended: () => ended, close: () => reader.cancel().catch(() => undefined) };
}

export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 5_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Whether the app in this process has nothing left under way: no reply
 * running here (each has stored what it had, or failed to, and settled its
 * quota) and no database query running or waiting.
 */
export async function nothingUnderWay(): Promise<boolean> {
  const pool = (await getDb()).$client;
  return localRuns().length === 0 && pool.idleCount === pool.totalCount && pool.waitingCount === 0;
}

/** The user's message count for today (UTC), as the quota sees it. */
export async function messagesToday(uid: string): Promise<number> {
  const db = await getDb();
  const day = new Date().toISOString().slice(0, 10);
  const [row] = await db
    .select()
    .from(usageDaily)
    .where(and(eq(usageDaily.uid, uid), eq(usageDaily.day, day)));
  return row?.messages ?? 0;
}
