import { randomUUID } from "node:crypto";
import pg from "pg";
import webPush from "web-push";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SavedExchange } from "~/conversation/message-types";
import { freshDatabase } from "../../scripts/perf/app-under-test";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { startModelServer, type ModelServer } from "../support/model-server";
import { startPushService, type PushService } from "../support/push-service";
import { mailBody, startSmtpCapture } from "../support/smtp-capture";
import { dataOf, firstMessage, readUntil, replyText, waitUntil } from "./chat-support";

/**
 * Telling people a reply is done (docs/decisions/101), through three
 * remix-serve instances on one PostgreSQL server, a scripted model, a
 * loopback push service whose devices decrypt what they receive with their
 * own keys, and a loopback SMTP server. A notice goes out only while none of
 * the user's tabs is in view (wherever the tab reported from), once whichever
 * instance ends the run, with the chat's title and no reply text unless the
 * user chose previews; a device whose push service says it is gone is
 * dropped; sign-out everywhere and account deletion forget the devices; a
 * user without push who chose email gets one when a long reply ends.
 * Needs a PostgreSQL server: skipped without TEST_DATABASE_URL (CI sets it).
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const LEASE_SECONDS = 3;
const ANDROID_CHROME =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const APP_URL = "http://nuvara.test";

describe.skipIf(!serverUrl)("reply notices across instances", { timeout: 90_000 }, () => {
  const firebase = admin();
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: ModelServer;
  let push: PushService;
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
  let sql: pg.Client;
  const apps: AppProcess[] = [];

  beforeAll(async () => {
    await buildApp();
    database = await freshDatabase(serverUrl!, "notices");
    model = await startModelServer({ models: ["test-model"] });
    push = await startPushService();
    smtp = await startSmtpCapture();
    const vapid = webPush.generateVAPIDKeys();
    const env = {
      DATABASE_URL: database.url,
      LLM_BASE_URL: model.url,
      LLM_MODELS: "test-model",
      LLM_TIMEOUT_MS: "20000",
      RUN_LEASE_SECONDS: String(LEASE_SECONDS),
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      VAPID_SUBJECT: "mailto:ops@nuvara.test",
      // The push service and the mail server are on loopback: allowed as an operator would (docs/decisions/088).
      OUTBOUND_ALLOW: "127.0.0.1",
      SMTP_URL: `${smtp.url}?from=${encodeURIComponent("notices@nuvara.test")}`,
      NOTIFY_EMAIL_AFTER_SECONDS: "1",
      APP_URL,
    };
    // One after another: the first applies the migrations, and a busy machine starts each in time.
    for (let i = 0; i < 3; i++) apps.push(await startApp({ env }));
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  }, 240_000);

  afterAll(async () => {
    await sql?.end();
    await Promise.all(apps.map((app) => app.kill("SIGKILL")));
    await model?.close();
    await push?.close();
    await smtp?.close();
    await database?.drop();
    await firebase.close();
  });

  async function user() {
    const account = await createAccount(firebase, { prefix: "notices" });
    return { account, cookie: await sessionCookieFor(account) };
  }

  function post(app: AppProcess, cookie: string, path: string, body: unknown, headers: Record<string, string> = {}) {
    return fetch(`${app.origin}${path}`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: app.origin, "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  }

  /** What the dashboard's "Notify me on this device" posts once the browser has subscribed. */
  async function subscribe(app: AppProcess, cookie: string, device: string) {
    const response = await post(
      app,
      cookie,
      "/api/notifications",
      { action: "subscribe", subscription: push.device(device).subscription },
      { "User-Agent": ANDROID_CHROME },
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  }

  async function presence(app: AppProcess, cookie: string, tab: string, visible: boolean) {
    expect((await post(app, cookie, "/api/presence", { tab, visible })).status).toBe(204);
  }

  /** Sends a new chat's first message on `app` and reads the reply to its end. */
  async function reply(app: AppProcess, cookie: string, text: string, words: string, chunkDelayMs = 10) {
    model.enqueue({ type: "text", text: words, chunkDelayMs });
    const body = firstMessage(text);
    const response = await post(app, cookie, "/api/chat", body);
    expect(response.status).toBe(200);
    const chunks = await (await readUntil(response, () => false)).rest();
    const runId = dataOf<{ runId: string }>(chunks, "run")?.runId;
    expect(runId, JSON.stringify(chunks)).toBeDefined();
    return { conversationId: body.conversationId, runId: runId!, chunks };
  }

  async function outcomeOf(runId: string, kind = "ended"): Promise<string | null | undefined> {
    const { rows } = await sql.query<{ outcome: string | null }>(
      "select outcome from reply_notices where run_id = $1 and kind = $2",
      [runId, kind],
    );
    return rows.length === 0 ? undefined : rows[0].outcome;
  }

  /** The notice's decision is recorded once it is made and sent: what the user was told is then final. */
  async function decided(runId: string, timeoutMs = 10_000): Promise<string | null | undefined> {
    await waitUntil(
      `the notice for run ${runId} to be decided`,
      async () => Boolean(await outcomeOf(runId)),
      timeoutMs,
    );
    return outcomeOf(runId);
  }

  async function devicesOf(uid: string) {
    const { rows } = await sql.query<{ device: string; last_used_at: Date | null }>(
      "select device, last_used_at from push_subscriptions where uid = $1 order by created_at",
      [uid],
    );
    return rows;
  }

  it("a reply that finishes with no tab in view: each device gets one notice, for its own keys, with the chat's title and no reply text", async () => {
    const [a, b] = apps;
    const { account, cookie } = await user();
    await subscribe(a, cookie, "phone-1");
    await subscribe(a, cookie, "laptop-1");

    // Sent on B: the devices were added on A, and every instance reads them from PostgreSQL.
    const done = await reply(b, cookie, "Say three words", "alpha beta gamma");
    expect(await decided(done.runId)).toBe("pushed");

    for (const device of ["phone-1", "laptop-1"]) {
      const messages = push.messages(device);
      expect(messages).toEqual([
        {
          title: "Say three words",
          body: "Your reply is ready.",
          url: `/nuvara/${done.conversationId}`,
          tag: `reply-${done.runId}`,
        },
      ]);
      expect(JSON.stringify(messages)).not.toContain("alpha");
    }
    // Signed with the server's VAPID key, encrypted as aes128gcm, kept a while for an offline device.
    const [sent] = push.received.filter((message) => message.device === "phone-1");
    expect(sent.headers.authorization).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/);
    expect(sent.headers["content-encoding"]).toBe("aes128gcm");
    expect(Number(sent.headers.ttl)).toBeGreaterThan(0);
    expect(sent.body.toString("utf8")).not.toContain("Say three words");
    // The settings list names the device from its user agent and says when it was last notified.
    expect((await devicesOf(account.uid)).map((row) => [row.device, row.last_used_at !== null])).toEqual([
      ["Chrome on Android", true],
      ["Chrome on Android", true],
    ]);
  });

  it("nothing is sent while one of the user's tabs is in view, wherever it reported from; once it hides, the next reply is", async () => {
    const [a, , c] = apps;
    const { cookie } = await user();
    await subscribe(a, cookie, "phone-2");
    const tab = randomUUID();
    await presence(c, cookie, tab, true);

    const seen = await reply(a, cookie, "Watched reply", "one two");
    expect(await decided(seen.runId)).toBe("tab visible");
    expect(push.messages("phone-2")).toEqual([]);

    await presence(c, cookie, tab, false);
    const away = await reply(a, cookie, "Unwatched reply", "three four");
    expect(await decided(away.runId)).toBe("pushed");
    expect(push.messages("phone-2")).toEqual([expect.objectContaining({ title: "Unwatched reply" })]);
  });

  it("with previews chosen, the notice carries the reply's first words", async () => {
    const [a, b] = apps;
    const { cookie } = await user();
    await subscribe(a, cookie, "phone-3");
    expect((await post(b, cookie, "/api/notifications", { action: "preferences", preview: true })).status).toBe(200);

    const done = await reply(a, cookie, "Preview please", "delta epsilon zeta");
    expect(await decided(done.runId)).toBe("pushed");
    expect(push.messages("phone-3")).toEqual([
      expect.objectContaining({ title: "Preview please", body: "delta epsilon zeta" }),
    ]);
  });

  it("a device whose push service answers 410 is dropped; the user's other devices still hear", async () => {
    const [a] = apps;
    const { account, cookie } = await user();
    await subscribe(a, cookie, "gone-4");
    await subscribe(a, cookie, "phone-4");
    push.answer("gone-4", 410);

    const done = await reply(a, cookie, "One gone", "eta theta");
    expect(await decided(done.runId)).toBe("pushed");
    expect(push.messages("phone-4")).toHaveLength(1);
    expect(await devicesOf(account.uid)).toHaveLength(1);
    const { rows } = await sql.query("select endpoint from push_subscriptions where uid = $1", [account.uid]);
    expect(rows).toEqual([{ endpoint: push.device("phone-4").subscription.endpoint }]);
  });

  it("removing a device, sign-out everywhere and account deletion forget the devices", async () => {
    const [a, b] = apps;
    const first = await user();
    const removed = await subscribe(a, first.cookie, "phone-5");
    await subscribe(a, first.cookie, "laptop-5");
    const removal = await post(b, first.cookie, "/api/notifications", { action: "remove", id: removed });
    expect(await removal.json()).toEqual({ removed: true });
    expect(await devicesOf(first.account.uid)).toHaveLength(1);
    const signOut = await fetch(`${a.origin}/api/account/sign-out-everywhere`, {
      method: "POST",
      headers: { Cookie: first.cookie, Origin: a.origin },
      redirect: "manual",
    });
    expect(signOut.status).toBe(303);
    expect(await devicesOf(first.account.uid)).toEqual([]);

    const second = await user();
    await subscribe(a, second.cookie, "phone-6");
    const deletion = await fetch(`${b.origin}/api/account/delete`, {
      method: "POST",
      headers: { Cookie: second.cookie, Origin: b.origin, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ confirm: second.account.email }),
      redirect: "manual",
    });
    expect(deletion.status).toBe(303);
    expect(await devicesOf(second.account.uid)).toEqual([]);
  });

  it("without push, a user who chose email is emailed when a long reply ends: the title and a link, no reply text; a short one sends nothing", async () => {
    const [a, b] = apps;
    const { account, cookie } = await user();
    expect((await post(a, cookie, "/api/notifications", { action: "preferences", email: true })).status).toBe(200);

    const short = await reply(b, cookie, "Quick one", "iota");
    expect(await decided(short.runId)).toBe("short reply");

    // Longer than NOTIFY_EMAIL_AFTER_SECONDS (1 s here): ten words 200 ms apart.
    const words = "k1 k2 k3 k4 k5 k6 k7 k8 k9 k10";
    const long = await reply(b, cookie, "Slow one", words, 200);
    expect(await decided(long.runId)).toBe("emailed");
    const mails = smtp.received.filter((mail) => mail.to.includes(account.email));
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail.from).toBe("notices@nuvara.test");
    expect(mail.raw).toContain("Subject: Your reply is ready: Slow one");
    const text = mailBody(mail);
    expect(text).toContain('Your reply is ready in your chat "Slow one".');
    expect(text).toContain(`Open the chat: ${APP_URL}/nuvara/${long.conversationId}`);
    expect(text).not.toContain("k1");
  });

  it("once across instances: A dies mid-reply, B and C both sweep, and each device hears once that it was interrupted", async () => {
    const [a] = apps;
    const { cookie } = await user();
    await subscribe(a, cookie, "phone-7");
    await subscribe(a, cookie, "laptop-7");
    model.enqueue({ type: "text", text: Array.from({ length: 40 }, (_, i) => `w${i}`).join(" "), chunkDelayMs: 150 });
    const body = firstMessage("Count very slowly");
    const response = await post(a, cookie, "/api/chat", body);
    const head = await readUntil(
      response,
      (sofar) => replyText(sofar).includes("w2") && dataOf(sofar, "run") !== undefined,
    );
    const runId = dataOf<{ runId: string }>(head.chunks, "run")!.runId;
    await head.reader.cancel().catch(() => undefined);
    await a.kill("SIGKILL");

    expect(await decided(runId, (LEASE_SECONDS * 1.5 + 8) * 1000)).toBe("pushed");
    const { rows } = await sql.query<{ status: string }>("select status from reply_runs where id = $1", [runId]);
    expect(rows[0].status).toBe("interrupted");
    // The decision is recorded after every device was sent to, by the one instance that claimed it.
    for (const device of ["phone-7", "laptop-7"]) {
      expect(push.messages(device)).toEqual([
        expect.objectContaining({ title: "Count very slowly", body: "Your reply was interrupted." }),
      ]);
    }
    const claims = await sql.query("select kind from reply_notices where run_id = $1", [runId]);
    expect(claims.rows).toEqual([{ kind: "ended" }]);
    expect(dataOf<SavedExchange>(head.chunks, "saved")).toBeUndefined();
  });
});
