import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { resetConfig } from "~/config.server";
import { BUSY } from "~/chat/chat-endpoint.server";
import { UPLOADS_BUSY } from "~/attachments/upload.server";
import { scrape } from "~/metrics/metrics.server";
import { getSessionUser } from "~/auth/session.server";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { healAll, setFault, setLatency } from "../support/faults";
import { dataOf, firstMessage, messagesToday, postChat, readChunks, type ChatBody } from "./chat-support";

/**
 * The per-instance admission limits (docs/decisions/096), as a client sees
 * them: over CHAT_ADMISSION_LIMIT a send is answered 503 with Retry-After at
 * once, before any backend call, while the admitted ones are served; every
 * send and upload gives its slot back however it ends (served, refused by a
 * check, failed on a store or the model, or left by its browser).
 *
 * Every request below is started in one go: each takes its slot, or is
 * refused, before any backend has answered any of them.
 */

const ENV = { LLM_MODELS: "test-model", LLM_TIMEOUT_MS: "2000", LLM_TITLE_MODEL: "off" };

const firebase = admin();
let model: ModelServer;
let restoreLimits: (() => void) | undefined;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  Object.assign(process.env, ENV, { LLM_BASE_URL: model.url });
  resetConfig();
});

afterAll(async () => {
  for (const name of [...Object.keys(ENV), "LLM_BASE_URL"]) delete process.env[name];
  resetConfig();
  await model.close();
  await firebase.close();
});

beforeEach(() => model.reset());

afterEach(async () => {
  restoreLimits?.();
  restoreLimits = undefined;
  await healAll();
});

function limitSendsTo(n: number) {
  restoreLimits = setAppEnv({ CHAT_ADMISSION_LIMIT: String(n) });
}

async function signedIn() {
  const account = await createAccount(firebase);
  return { uid: account.uid, cookie: await sessionCookieFor(account) };
}

/** Sends every body at once; the answers, and the order in which they came. */
async function sendAtOnce(bodies: ChatBody[], cookie: string) {
  const order: number[] = [];
  const answers = await Promise.all(
    bodies.map((body, index) =>
      postChat(body, { cookie }).then((response) => {
        order.push(index);
        return response;
      }),
    ),
  );
  return { answers, order };
}

/** A served send: its reply streamed to the end and confirmed as stored. */
async function expectServed(response: Response, body: ChatBody) {
  expect(response.status, response.status === 200 ? "" : await response.clone().text()).toBe(200);
  const chunks = await readChunks(response);
  expect(dataOf(chunks, "saved")).toMatchObject({ userMessageId: body.message.id, status: "completed" });
}

async function expectBusy(response: Response, error = BUSY) {
  expect(response.status).toBe(503);
  expect(response.headers.get("Retry-After")).toMatch(/^[234]$/);
  expect(await response.json()).toEqual({ error });
}

/**
 * The proxies back to passing, and the session check answering again: healing
 * closed the connections the proxies held, and the first call on a closed one fails.
 */
async function healed(cookie: string) {
  await healAll();
  await vi.waitFor(
    async () => {
      const session = await getSessionUser(appRequest("/api/chat", { method: "POST", cookie }));
      expect(session.status === "signed-in" && !session.degraded).toBe(true);
    },
    { timeout: 15_000, interval: 100 },
  );
}

/** A metric's value for one admission limit, as /metrics shows it (0 when it has none yet). */
async function onMetrics(metric: string, limit: string): Promise<number> {
  const { body } = await scrape();
  const line = new RegExp(`^${metric}\\{limit="${limit}"\\} (\\d+)$`, "m").exec(body);
  return line ? Number(line[1]) : 0;
}

const refusalsOnMetrics = (limit: string) => onMetrics("nuvara_limit_refusals_total", limit);

/** A send whose browser left holds its slot until the server is done with it, which only /metrics tells. */
async function slotsBackOnMetrics() {
  await vi.waitFor(async () => expect(await onMetrics("nuvara_admission_in_use", "chat_admission")).toBe(0));
}

/** Sends `n` messages at once and expects every one served: all `n` slots are free. */
async function expectAllSlotsFree(n: number, cookie: string) {
  const bodies = Array.from({ length: n }, (_, i) => firstMessage(`Once the slots are back ${i}`));
  const { answers } = await sendAtOnce(bodies, cookie);
  for (const [index, response] of answers.entries()) await expectServed(response, bodies[index]);
}

describe("POST /api/chat over the instance's admission limit", () => {
  it("N + k sends at once: k refused at once with 503 and Retry-After, N served; then N more are served", async () => {
    const N = 3;
    const k = 4;
    limitSendsTo(N);
    const { uid, cookie } = await signedIn();
    const refusedBefore = await refusalsOnMetrics("chat_admission");
    const bodies = Array.from({ length: N + k }, (_, i) => firstMessage(`Send number ${i}`));

    const { answers, order } = await sendAtOnce(bodies, cookie);

    const refused = answers.flatMap((response, index) => (response.status === 503 ? [index] : []));
    expect(refused).toHaveLength(k);
    // At once: every refusal was answered before any admitted send had its answer.
    expect(order.slice(0, k).sort()).toEqual(refused);
    for (const index of refused) await expectBusy(answers[index]);
    for (const [index, response] of answers.entries()) {
      if (!refused.includes(index)) await expectServed(response, bodies[index]);
    }
    // The refused sends reached no backend: nothing counted, the model asked N times.
    expect(await messagesToday(uid)).toBe(N);
    expect(model.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(N);
    expect((await refusalsOnMetrics("chat_admission")) - refusedBefore).toBe(k);

    await expectAllSlotsFree(N, cookie);
  });

  it("refuses at once while the admitted sends wait on a hanging store; their failure gives the slots back", async () => {
    const N = 2;
    limitSendsTo(N);
    const { cookie } = await signedIn();
    await setFault("identity", "stall");
    let waitingSettled = false;
    const waiting = Promise.all([firstMessage("Held 1"), firstMessage("Held 2")].map((b) => postChat(b, { cookie })));
    void waiting.then(() => (waitingSettled = true));

    const extra = await postChat(firstMessage("One too many"), { cookie });

    await expectBusy(extra);
    expect(waitingSettled).toBe(false);
    // The session can't be checked: each admitted send fails at the backends' deadline.
    for (const response of await waiting) {
      expect(response.status).toBe(503);
      expect((await response.json()).error).toMatch(/Login can't be checked right now/);
    }
    await healed(cookie);
    await expectAllSlotsFree(N, cookie);
  });

  it("a send the model fails, one refused by a check and one without a session each give their slot back", async () => {
    limitSendsTo(1);
    const { cookie } = await signedIn();

    model.setFailureMode({ type: "http-error", status: 500 });
    const failed = await postChat(firstMessage("The model fails this one"), { cookie });
    const chunks = await readChunks(failed);
    expect(chunks.some((chunk) => chunk.type === "error")).toBe(true);
    expect(dataOf(chunks, "saved")).toBeUndefined();
    model.setFailureMode(null);
    await expectAllSlotsFree(1, cookie);

    expect((await postChat("{not json", { cookie })).status).toBe(400);
    await expectAllSlotsFree(1, cookie);

    expect((await postChat(firstMessage("Who am I?"))).status).toBe(401);
    await expectAllSlotsFree(1, cookie);
  });

  it("a send whose browser goes away, while admitted or once streaming, gives its slot back", async () => {
    limitSendsTo(1);
    const { cookie } = await signedIn();

    // Gone while the session check is on its way (slowed down): the server finishes with the send.
    await setLatency("identity", 200);
    const leaving = new AbortController();
    const left = postChat(firstMessage("Gone during admission"), { cookie, signal: leaving.signal });
    leaving.abort();
    await left;
    await setLatency("identity", 0);
    await slotsBackOnMetrics();
    await expectAllSlotsFree(1, cookie);

    // Gone as soon as the reply started: the reply goes on without it (docs/decisions/070).
    const hungUp = new AbortController();
    const started = await postChat(firstMessage("Gone once streaming"), { cookie, signal: hungUp.signal });
    expect(started.status).toBe(200);
    hungUp.abort();
    await started.body?.cancel();
    await slotsBackOnMetrics();
    await expectAllSlotsFree(1, cookie);
  });
});

/** An upload whose body arrives as the test says: `finish()` sends the last bytes, `fail()` cuts it off. */
function uploadInParts(cookie: string, name: string) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => (controller = c) });
  controller.enqueue(new TextEncoder().encode("The first part of the file. "));
  const answer = postUpload(cookie, name, body);
  return {
    answer,
    finish() {
      controller.enqueue(new TextEncoder().encode("The rest of it."));
      controller.close();
    },
    fail() {
      controller.error(new Error("the browser went away"));
    },
  };
}

async function postUpload(cookie: string, name: string, body: ReadableStream<Uint8Array> | string) {
  const { action } = await import("~/routes/api.attachments");
  const request = appRequest("/api/attachments", {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/octet-stream", "X-File-Name": name },
    body,
    duplex: "half",
  } as RequestInit & { duplex: "half" });
  return (await action({ request, params: {}, context: {} })) as Response;
}

async function expectStored(answer: Promise<Response>) {
  const response = await answer;
  expect(response.status).toBe(201);
  expect((await response.json()).attachment).toMatchObject({ kind: "text" });
}

describe("POST /api/attachments over the instance's admission limit", () => {
  it("an upload over the limit is refused at once with 503 and Retry-After; the slot is back after each upload", async () => {
    restoreLimits = setAppEnv({ UPLOAD_ADMISSION_LIMIT: "1" });
    const { cookie } = await signedIn();
    const refusedBefore = await refusalsOnMetrics("upload_admission");

    const first = uploadInParts(cookie, "first.txt");
    let firstSettled = false;
    void first.answer.then(() => (firstSettled = true));
    await expectBusy(await postUpload(cookie, "second.txt", "Sent while the first is arriving."), UPLOADS_BUSY);
    expect(firstSettled).toBe(false);
    expect((await refusalsOnMetrics("upload_admission")) - refusedBefore).toBe(1);

    first.finish();
    await expectStored(first.answer);
    await expectStored(postUpload(cookie, "third.txt", "Sent once the first is stored."));

    // Cut off part way (the browser went away): answered, and the slot is back.
    const cut = uploadInParts(cookie, "cut.txt");
    cut.fail();
    expect((await cut.answer).status).toBe(400);
    // Refused by a check (an empty file): the slot is back too.
    expect((await postUpload(cookie, "empty.txt", "")).status).toBe(400);
    await expectStored(postUpload(cookie, "last.txt", "Sent after the failed ones."));
  });
});
