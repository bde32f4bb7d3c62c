import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "~/config.server";
import { readRole } from "~/auth/roles.server";
import { getDb } from "~/db/client.server";
import { conversations, messages } from "~/db/schema";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { startFaultProxy, type FaultMode, type FaultProxy } from "../support/fault-proxy";
import { healAll, setFault, type Backend } from "../support/faults";
import { startModelServer, type FailureMode, type ModelServer } from "../support/model-server";
import {
  chunkOfType,
  dataOf,
  firstMessage,
  messagesToday,
  postChat,
  readChunks,
  readUntil,
  replyText,
  type ChatBody,
} from "./chat-support";

/**
 * The chat endpoint with each backend stopped, stalled or answering errors in
 * turn: a clear answer within a deadline, nothing
 * half-written, no quota used unless part of the reply was shown (then it
 * counts, docs/decisions/044); once the fault is gone, Retry (the same
 * message id) stores one message and one reply and counts the quota once more.
 */

// Backend calls have a deadline of BACKEND_TIMEOUT_MS (1 s in the tests), and
// node-postgres's connect and query timeouts have a floor of 5 s
// (app/db/client.server.ts); the model's is LLM_TIMEOUT_MS.
const DEADLINE_MS = 7_000;
const ENV = { LLM_MODELS: "test-model", LLM_TIMEOUT_MS: "1000" };

const firebase = admin();
let model: ModelServer;
/** Between the app and the model server, to stop or stall the model like the stores. */
let modelProxy: FaultProxy;

beforeAll(async () => {
  model = await startModelServer();
  modelProxy = await startFaultProxy(new URL(model.url).host);
  Object.assign(process.env, ENV, { LLM_BASE_URL: `http://${modelProxy.hostPort}/v1` });
  resetConfig();
});

afterAll(async () => {
  for (const name of [...Object.keys(ENV), "LLM_BASE_URL"]) delete process.env[name];
  resetConfig();
  await modelProxy.close();
  await model.close();
  await firebase.close();
});

afterEach(async () => {
  await heal();
});

async function heal() {
  modelProxy.setMode("pass");
  model.setFailureMode(null);
  await healAll();
  await dropClosedConnections();
  // Firestore's client reconnects after a backoff once its connection failed: it reads again before the next send.
  await vi.waitFor(() => readRole("healed@probe.invalid"), { timeout: 15_000, interval: 100 });
}

/**
 * Healing closes the connections the proxies held, the database pool's idle
 * ones too: each is tried, and one that fails is dropped, so the next query
 * does not get a connection that is already closed.
 */
async function dropClosedConnections() {
  const pool = (await getDb()).$client;
  const clients = await Promise.all(Array.from({ length: pool.idleCount }, () => pool.connect()));
  await Promise.all(
    clients.map((client) =>
      client.query("select 1").then(
        () => client.release(),
        (error: Error) => client.release(error),
      ),
    ),
  );
}

interface Attempt {
  status: number;
  /** What the person chatting is told went wrong, if anything. */
  error?: string;
  saved?: { userMessageId: string; status: string };
  text: string;
  ms: number;
}

function interpret(status: number, chunks: Awaited<ReturnType<typeof readChunks>>, started: number): Attempt {
  return {
    status,
    error: chunkOfType(chunks, "error")?.errorText,
    saved: dataOf(chunks, "saved"),
    text: replyText(chunks),
    ms: Date.now() - started,
  };
}

/** One send through the real endpoint, read to its end; fails the test if that takes longer than the deadline. */
async function attempt(body: ChatBody, cookie: string): Promise<Attempt> {
  const started = Date.now();
  const work = (async () => {
    const response = await postChat(body, { cookie });
    if (response.status !== 200) {
      return {
        status: response.status,
        error: ((await response.json()) as { error: string }).error,
        text: "",
        ms: Date.now() - started,
      };
    }
    return interpret(200, await readChunks(response), started);
  })();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function signedIn() {
  const account = await createAccount(firebase);
  return { uid: account.uid, cookie: await sessionCookieFor(account) };
}

/** Every stored user message is followed by its reply, which says how it ended. */
async function expectNothingHalfWritten(uid: string) {
  const db = await getDb();
  const rows = await db
    .select({ conversationId: messages.conversationId, role: messages.role, status: messages.status })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(eq(conversations.uid, uid))
    .orderBy(messages.conversationId, messages.seq);
  const shapes = new Map<string, string[]>();
  for (const row of rows) {
    const shape = shapes.get(row.conversationId) ?? [];
    shape.push(row.role === "user" ? "user" : `reply:${row.status}`);
    shapes.set(row.conversationId, shape);
  }
  for (const shape of shapes.values()) {
    const pairs = Array.from({ length: Math.ceil(shape.length / 2) }, () => [
      "user",
      expect.stringMatching(/^reply:(completed|stopped)$/),
    ]);
    expect(shape).toEqual(pairs.flat());
  }
}

/**
 * Retry after recovery: the same request again gives one message and one reply, and
 * counts once more — or not at all when it reuses a unit the failed attempt still holds.
 */
async function expectRetryStoresOnce(body: ChatBody, cookie: string, uid: string, counted = 1) {
  const retry = await attempt(body, cookie);
  expect(retry.error).toBeUndefined();
  expect(retry.saved).toMatchObject({ userMessageId: body.message.id, status: "completed" });
  const db = await getDb();
  const rows = await db
    .select()
    .from(messages)
    .where(eq(messages.conversationId, body.conversationId))
    .orderBy(messages.seq);
  expect(rows.map((row) => [row.role, row.content, row.status])).toEqual([
    ["user", body.message.parts[0].text, null],
    ["assistant", `You said: ${body.message.parts[0].text}`, "completed"],
  ]);
  expect(rows[0].id).toBe(body.message.id);
  expect(await messagesToday(uid)).toBe(counted);
  await expectNothingHalfWritten(uid);
}

/** `shows`: part of the reply reaches the browser before the failure, so it counts (docs/decisions/044). */
type Fault = { name: string; inject(): Promise<void> | void; expected: RegExp; shows?: boolean };

const UNAVAILABLE = /can't be (checked|reached) right now\. Please try again shortly/;

const storeFaults: Fault[] = (["identity", "firestore", "postgres"] as Backend[]).flatMap((backend) =>
  (["refuse", "stall", "error"] as FaultMode[]).map((mode) => ({
    name: `${backend} ${mode === "refuse" ? "stopped" : mode === "stall" ? "stalled" : "answering errors"}`,
    inject: () => setFault(backend, mode),
    // The user's role (quota, models) or revocation state is unknown: nothing is sent.
    expected: UNAVAILABLE,
  })),
);

const modelFault = (name: string, mode: FailureMode, expected: RegExp): Fault => ({
  name,
  inject: () => model.setFailureMode(mode),
  expected,
});

const modelFaults: Fault[] = [
  {
    name: "model server stopped",
    inject: () => modelProxy.setMode("refuse"),
    expected: /model can't be reached right now/,
  },
  {
    name: "model server stalled",
    inject: () => modelProxy.setMode("stall"),
    expected: /model took too long to answer/,
  },
  modelFault(
    "model server answering 500",
    { type: "http-error", status: 500 },
    /model service had a problem answering/,
  ),
  modelFault(
    "model server answering 429",
    { type: "http-error", status: 429, retryAfterSeconds: 5 },
    /busy \(too many requests\)/,
  ),
  modelFault("model server answering garbage", { type: "malformed" }, /couldn't be read/),
  {
    ...modelFault(
      "model dropping the connection mid-stream",
      { type: "drop", text: "Half an ans" },
      /connection to the model was lost/,
    ),
    shows: true,
  },
];

describe("POST /api/chat with a backend failing, then recovering", () => {
  it.each([...storeFaults, ...modelFaults])(
    "$name: a clear answer in time, nothing stored, counted only if shown; Retry stores once",
    async (fault) => {
      const { uid, cookie } = await signedIn();
      const body = firstMessage(`Message sent while the ${fault.name}`);
      await fault.inject();

      const failed = await attempt(body, cookie);
      expect(failed.saved).toBeUndefined();
      expect(failed.error).toMatch(fault.expected);
      if (failed.status !== 200) expect(failed.status).toBe(503);

      await heal();
      await expectNothingHalfWritten(uid);
      expect(await messagesToday(uid)).toBe(fault.shows ? 1 : 0);
      await expectRetryStoresOnce(body, cookie, uid, fault.shows ? 2 : 1);
    },
  );
});

describe("POST /api/chat with PostgreSQL failing after tokens flowed, before the exchange is stored", () => {
  it.each(["refuse", "stall", "error"] as const)(
    "postgres %s mid-stream: an error, nothing stored, the shown reply counts; Retry stores once and counts once more",
    async (mode) => {
      const { uid, cookie } = await signedIn();
      const body = firstMessage(`Store this when ${mode}`);
      model.enqueue({ type: "text", text: "one two three four five six", chunkDelayMs: 100 });
      const started = Date.now();
      const response = await postChat(body, { cookie });
      expect(response.status).toBe(200);
      const { rest } = await readUntil(response, (sofar) => replyText(sofar).includes("two"));
      await setFault("postgres", mode);
      const failed = interpret(200, await rest(), started);
      expect(failed.ms).toBeLessThan(DEADLINE_MS + 1_000);
      expect(failed.text).toContain("six");
      expect(failed.saved).toBeUndefined();
      expect(failed.error).toBe("The reply could not be saved. Please try again.");

      await heal();
      await expectNothingHalfWritten(uid);
      expect(
        await getDb().then((db) => db.select().from(messages).where(eq(messages.conversationId, body.conversationId))),
      ).toEqual([]);
      // The reply was shown, so it counts (docs/decisions/044), whether or not its
      // settlement reached PostgreSQL; the Retry is another reply, counted once more.
      expect(await messagesToday(uid)).toBe(1);
      await expectRetryStoresOnce(body, cookie, uid, 2);
    },
  );
});
