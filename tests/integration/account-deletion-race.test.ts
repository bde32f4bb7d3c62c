import type { ActionFunctionArgs } from "@remix-run/node";
import { eq, getTableName, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountDeletedError } from "~/data/account-lock.server";
import { USER_TABLES } from "~/data/account.server";
import { addContactMessage } from "~/data/inbox.server";
import { getDb } from "~/db/client.server";
import { conversations, messages } from "~/db/schema";
import { action as deleteAction } from "~/routes/api.account.delete";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { firstMessage, nothingUnderWay, postChat, waitUntil } from "./chat-support";

/**
 * Deleting an account while its chat requests are in flight must leave no
 * row of it (docs/decisions/045, deletion wins). The race as it was found:
 * a burst of sends 2 ms apart, the deletion, more sends;
 * here several times over, with slow replies and this instance's caches on (so
 * the early start is in play as well).
 */
const ENV = {
  AUTH_CACHE_TTL_SECONDS: "30",
  LLM_MODELS: "test-model",
  QUOTA_DAILY_MESSAGES: "none=500",
  CHAT_RATE_LIMIT_PER_MINUTE: "500",
};
const RUNS = 4;
let restoreEnv: () => void;

const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  // Each word of a reply 15 ms apart: the replies are still streaming when the deletion runs.
  model = await startModelServer({ echoChunkDelayMs: 15 });
  restoreEnv = setAppEnv({ ...ENV, LLM_BASE_URL: model.url });
});

afterAll(async () => {
  restoreEnv();
  await model.close();
  await firebase.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function deleteRequest(cookie: string, email: string) {
  return appRequest("/api/account/delete", {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ confirm: email }).toString(),
  });
}

/** One send, read to its end whatever the answer (a refusal, a reply, a reply that could not be saved). */
async function send(cookie: string, text: string) {
  const response = await postChat(firstMessage(`${text} and some more words to stream slowly`), { cookie });
  await response.text();
  return response.status;
}

/** Rows of the uid in every table that holds one user's rows, and messages through their conversations. */
async function rowsLeft(uid: string) {
  const db = await getDb();
  const counts: Record<string, number> = {};
  const owned = db.select({ id: conversations.id }).from(conversations).where(eq(conversations.uid, uid));
  counts.messages = (
    await db.select({ id: messages.id }).from(messages).where(inArray(messages.conversationId, owned))
  ).length;
  for (const { table, owner } of USER_TABLES) {
    counts[getTableName(table)] = (await db.select().from(table).where(eq(owner, uid))).length;
  }
  return counts;
}

describe("POST /api/account/delete with chat requests in flight", () => {
  it(
    `deletion wins: no row of the account is left, whatever was in flight (${RUNS} runs)`,
    { timeout: 120_000 },
    async () => {
      for (let run = 0; run < RUNS; run += 1) {
        const account = await createAccount(firebase);
        const cookie = await sessionCookieFor(account);
        // This instance's caches now know the session: later sends may start early.
        expect(await send(cookie, "warm up")).toBe(200);

        const sends: Array<Promise<number>> = [];
        for (let i = 0; i < 15; i += 1) {
          sends.push(send(cookie, `before ${i}`));
          await sleep(2);
        }
        const deleted = deleteAction({
          request: deleteRequest(cookie, account.email),
          params: {},
          context: {},
        } as ActionFunctionArgs);
        for (let i = 0; i < 30; i += 1) {
          sends.push(send(cookie, `after ${i}`));
          await sleep(2);
        }
        const response = (await deleted) as Response;
        expect(response.status, `run ${run}: the deletion`).toBe(303);
        const statuses = await Promise.all(sends);
        // Every model request is over, so every reply has tried to store what it had.
        await waitUntil(
          "every model request is closed",
          async () => {
            const outcomes = await Promise.all(
              model.requests.map((request) => Promise.race([request.outcome, Promise.resolve("open")])),
            );
            return !outcomes.includes("open");
          },
          15_000,
        );
        await waitUntil("every reply to have ended and its writes to be done", nothingUnderWay);

        const left = await rowsLeft(account.uid);
        expect(left, `run ${run}: rows left after deletion (answers: ${statuses.join(",")})`).toEqual(
          Object.fromEntries(Object.keys(left).map((table) => [table, 0])),
        );
        await expect(firebase.auth.getUser(account.uid)).rejects.toMatchObject({ code: "auth/user-not-found" });
        model.reset();
      }
    },
  );
});

describe("the inbox after a deletion", () => {
  it("a contact message of an account deleted while it was on its way is not stored (the deletion holds the lock)", async () => {
    const account = await createAccount(firebase);
    const cookie = await sessionCookieFor(account);
    const response = (await deleteAction({
      request: deleteRequest(cookie, account.email),
      params: {},
      context: {},
    } as ActionFunctionArgs)) as Response;
    expect(response.status).toBe(303);
    // The request had passed its session check before the deletion: it reaches the store now.
    const sender = { email: account.email, uid: account.uid, name: null, role: "", verified: true };
    await expect(addContactMessage(await getDb(), sender, "sent as the account was deleted")).rejects.toBeInstanceOf(
      AccountDeletedError,
    );
    expect((await rowsLeft(account.uid)).inbox_messages ?? 0).toBe(0);
  });
});
