import { and, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "~/db/client.server";
import { messages, quotaReservations, usageDaily } from "~/db/schema";
import { freePort } from "../../scripts/local/ports";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { startModelServer, type ModelServer } from "../support/model-server";
import { dataOf, firstMessage, newMessage, readChunks, readUntil, replyText, type ChatBody } from "./chat-support";

/**
 * The built app (remix-serve in a child process, against the test backends)
 * killed in the middle of a streamed reply, then started again:
 * every exchange confirmed as saved is there exactly; the interrupted one is
 * absent or stored with a status; the quota counts what is stored, once.
 */

const firebase = admin();
let model: ModelServer;
let port: number;
let app: AppProcess | undefined;

beforeAll(async () => {
  await buildApp();
  model = await startModelServer();
  port = await freePort();
}, 180_000);

afterEach(async () => {
  await app?.kill("SIGKILL");
  app = undefined;
  model.reset();
});

afterAll(async () => {
  await model.close();
  await firebase.close();
});

/** The app on the same port each time, as after a restart. */
async function start() {
  app = await startApp({ port, env: { LLM_BASE_URL: model.url, LLM_MODELS: "test-model", LLM_TIMEOUT_MS: "5000" } });
  return app;
}

function post(server: AppProcess, body: ChatBody, cookie: string) {
  return fetch(`${server.origin}/api/chat`, {
    method: "POST",
    headers: { Origin: server.origin, Cookie: cookie, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function stored(conversationId: string) {
  const db = await getDb();
  const rows = await db
    .select()
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(messages.seq);
  return rows.map((row) => ({ id: row.id, role: row.role, content: row.content, status: row.status }));
}

async function messagesToday(uid: string) {
  const db = await getDb();
  const [row] = await db
    .select({ messages: usageDaily.messages })
    .from(usageDaily)
    .where(and(eq(usageDaily.uid, uid), eq(usageDaily.day, new Date().toISOString().slice(0, 10))));
  return row?.messages ?? 0;
}

const SLOW_REPLY = Array.from({ length: 40 }, (_, i) => `w${i + 1} `);

/** Starts a slow reply on `server` and returns once tokens flowed; `rest()` reads on (null when the stream breaks). */
async function slowReplyUnderway(server: AppProcess, body: ChatBody, cookie: string) {
  model.enqueue({ type: "text", text: SLOW_REPLY, chunkDelayMs: 100 });
  const response = await post(server, body, cookie);
  expect(response.status).toBe(200);
  const { rest } = await readUntil(response, (chunks) => replyText(chunks).includes("w3"));
  return { rest: () => rest().catch(() => null) };
}

describe("restarting the server mid-stream", () => {
  it.each(["SIGKILL", "SIGTERM"] as const)(
    "%s: the confirmed exchange stays exactly; the open reply is stored complete (SIGTERM) or not at all (SIGKILL, then Retry counts once)",
    async (signal) => {
      const account = await createAccount(firebase);
      const cookie = await sessionCookieFor(account);
      let server = await start();

      const first = firstMessage("Remember this");
      const confirmed = await readChunks(await post(server, first, cookie));
      expect(dataOf(confirmed, "saved")).toMatchObject({ userMessageId: first.message.id, status: "completed" });
      const confirmedRows = await stored(first.conversationId);
      expect(confirmedRows.map((row) => [row.role, row.status])).toEqual([
        ["user", null],
        ["assistant", "completed"],
      ]);

      const second: ChatBody = { ...first, create: false, message: newMessage("Count to forty slowly") };
      const underway = await slowReplyUnderway(server, second, cookie);
      const killed = server.kill(signal);
      const chunks = await underway.rest();
      const exitedWithin = await Promise.race([
        killed.then(() => true),
        new Promise((resolve) => setTimeout(resolve, 5_000, false)),
      ]);
      expect(exitedWithin, "the app exits soon after the open replies end").toBe(true);
      server = await start();

      const rows = await stored(first.conversationId);
      expect(rows.slice(0, 2)).toEqual(confirmedRows);
      if (signal === "SIGTERM") {
        // remix-serve stops taking requests and lets the open reply finish: it is stored and confirmed.
        expect(chunks && dataOf(chunks, "saved")).toMatchObject({
          userMessageId: second.message.id,
          status: "completed",
        });
        expect(rows.slice(2).map((row) => [row.role, row.status])).toEqual([
          ["user", null],
          ["assistant", "completed"],
        ]);
        expect(await messagesToday(account.uid)).toBe(2);
        return;
      }
      // SIGKILL: the stream broke, never confirmed; nothing of it is stored, not even the user's message.
      expect(chunks).toBeNull();
      expect(rows).toHaveLength(2);

      // Its reservation outlived the server. While it could still be a reply in flight elsewhere
      // (refreshed within IN_FLIGHT_WINDOW), the same message is refused (ADR 044: one reply per message)…
      expect(await messagesToday(account.uid)).toBe(2);
      const early = await post(server, second, cookie);
      expect(early.status).toBe(409);
      expect(await early.json()).toEqual({ error: "This message is already being answered." });
      // …once no heartbeat has refreshed it for that long, the Retry (same message) takes it over and reuses its unit.
      await (
        await getDb()
      )
        .update(quotaReservations)
        .set({ reservedAt: sql`now() - interval '30 seconds'` })
        .where(and(eq(quotaReservations.uid, account.uid), eq(quotaReservations.messageId, second.message.id)));
      const retried = await readChunks(await post(server, second, cookie));
      expect(dataOf(retried, "saved")).toMatchObject({ userMessageId: second.message.id, status: "completed" });
      const after = await stored(first.conversationId);
      expect(after.slice(0, 2)).toEqual(confirmedRows);
      expect(after.slice(2).map((row) => [row.id, row.role, row.status])).toEqual([
        [second.message.id, "user", null],
        [expect.any(String), "assistant", "completed"],
      ]);
      expect(await messagesToday(account.uid)).toBe(2);
    },
    60_000,
  );

  it("a reply that died with its server and was never retried gives its quota back after the lease", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    let server = await start();
    const lost = firstMessage("Lost with the server");
    const underway = await slowReplyUnderway(server, lost, cookie);
    await server.kill("SIGKILL");
    expect(await underway.rest()).toBeNull();
    server = await start();
    expect(await stored(lost.conversationId)).toEqual([]);
    expect(await messagesToday(account.uid)).toBe(1);

    // Within the lease the reservation holds (its reply might still be streaming elsewhere)…
    const next = firstMessage("Next one");
    expect(dataOf(await readChunks(await post(server, next, cookie)), "saved")).toBeDefined();
    expect(await messagesToday(account.uid)).toBe(2);

    // …once it is older than the lease, the next send gives it back.
    const db = await getDb();
    await db
      .update(quotaReservations)
      .set({ reservedAt: sql`now() - interval '16 minutes'` })
      .where(and(eq(quotaReservations.uid, account.uid), eq(quotaReservations.messageId, lost.message.id)));
    const later = firstMessage("Later one");
    expect(dataOf(await readChunks(await post(server, later, cookie)), "saved")).toBeDefined();
    expect(await messagesToday(account.uid)).toBe(2);
    expect(await db.select().from(quotaReservations).where(eq(quotaReservations.uid, account.uid))).toEqual([]);
  }, 60_000);
});
