import type { UIMessageChunk } from "ai";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SavedExchange } from "~/conversation/message-types";
import { freshDatabase } from "../../scripts/perf/app-under-test";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { databaseTargets, titled, type DatabaseAccess } from "../support/database-targets";
import { startModelServer, type ModelServer } from "../support/model-server";
import { dataOf, firstMessage, followConversationEvents, readUntil, replyText, waitUntil } from "./chat-support";

/**
 * Replies that survive (docs/decisions/070): three remix-serve
 * instances on one PostgreSQL server and one scripted model. A reply started
 * on A goes on when its client leaves and is followed from B; Stop on B stops
 * the model request on A; an instance killed mid-reply has its reply marked
 * interrupted by another within the lease, partial text kept, quota settled
 * once; on SIGTERM an instance lets its replies finish, or hands them over.
 * Run directly and through a transaction pooler, with a direct URL to listen
 * on and without one (then the instances watch the runs' rows instead of
 * hearing notices, docs/decisions/097).
 * Needs a PostgreSQL server: skipped without TEST_DATABASE_URL (CI sets it),
 * and pgbouncer for the pooler.
 */
const serverUrl = process.env.TEST_DATABASE_URL;
const LEASE_SECONDS = 3;

// Each test starts, streams, kills and restarts server processes: generous on a busy machine.
for (const [index, target] of databaseTargets().entries()) {
  describe.skipIf(target.unavailable)(
    titled("replies that survive, across instances", target),
    { timeout: 90_000 },
    () => {
      const firebase = admin();
      let database: Awaited<ReturnType<typeof freshDatabase>>;
      let access: DatabaseAccess;
      let model: ModelServer;
      let sql: pg.Client;
      let env: Record<string, string>;
      const apps: AppProcess[] = [];

      beforeAll(async () => {
        await buildApp();
        database = await freshDatabase(serverUrl!, `runs_${index}`);
        access = await target.start();
        model = await startModelServer({ models: ["test-model"] });
        env = {
          ...access.env(database.url),
          LLM_BASE_URL: model.url,
          LLM_MODELS: "test-model",
          LLM_TIMEOUT_MS: "20000",
          RUN_LEASE_SECONDS: String(LEASE_SECONDS),
          SHUTDOWN_GRACE_SECONDS: "5",
          LOG_LEVEL: "info",
        };
        apps.push(...(await Promise.all([startApp({ env }), startApp({ env }), startApp({ env })])));
        sql = new pg.Client({ connectionString: database.url });
        await sql.connect();
      }, 240_000);

      afterAll(async () => {
        await sql?.end();
        await Promise.all(apps.map((app) => app.kill("SIGKILL")));
        await model?.close();
        await access?.stop();
        await database?.drop();
        await firebase.close();
      });

      async function user() {
        const account = await createAccount(firebase, { prefix: "runs" });
        return { account, cookie: await sessionCookieFor(account) };
      }

      function send(app: AppProcess, cookie: string, body: unknown, signal?: AbortSignal) {
        return fetch(`${app.origin}/api/chat`, {
          method: "POST",
          headers: { Cookie: cookie, Origin: app.origin, "Content-Type": "application/json" },
          body: JSON.stringify(body),
          signal,
        });
      }

      function follow(app: AppProcess, cookie: string, runId: string) {
        return fetch(`${app.origin}/api/runs/${runId}`, { headers: { Cookie: cookie } });
      }

      function stop(app: AppProcess, cookie: string, messageId: string) {
        return fetch(`${app.origin}/api/runs/stop`, {
          method: "POST",
          headers: { Cookie: cookie, Origin: app.origin, "Content-Type": "application/json" },
          body: JSON.stringify({ messageId }),
        });
      }

      /**
       * Starts a reply on `app` and reads until it has shown `words` and named its run: the run's id
       * follows once the run is recorded, which may be after the first words (the first token does
       * not wait for it).
       */
      async function startReply(app: AppProcess, cookie: string, text: string, words: string) {
        const body = firstMessage(text);
        const client = new AbortController();
        const response = await send(app, cookie, body, client.signal);
        expect(response.status).toBe(200);
        const { chunks, reader } = await readUntil(
          response,
          (sofar) => replyText(sofar).includes(words) && dataOf(sofar, "run") !== undefined,
        );
        const run = dataOf<{ runId: string }>(chunks, "run");
        // A reply refused or failed before its run began says why in its chunks.
        expect(run, JSON.stringify(chunks)).toBeDefined();
        const runId = run!.runId;
        return { body, runId, client, reader, chunks };
      }

      async function stored(conversationId: string) {
        const { rows } = await sql.query<{ role: string; status: string | null; content: string }>(
          "select role, status, content from messages where conversation_id = $1 order by seq",
          [conversationId],
        );
        return rows;
      }

      /** A run's chunks as PostgreSQL holds them (its batches written so far). */
      async function storedChunks(runId: string) {
        const { rows } = await sql.query<{ chunks: UIMessageChunk[] }>(
          "select chunks from reply_run_events where run_id = $1 order by seq",
          [runId],
        );
        return rows.flatMap((row) => row.chunks);
      }

      async function messagesToday(uid: string) {
        const { rows } = await sql.query<{ messages: number }>("select messages from usage_daily where uid = $1", [
          uid,
        ]);
        return rows[0]?.messages ?? 0;
      }

      const WORDS = Array.from({ length: 30 }, (_, index) => `w${index + 1}`).join(" ");

      it("a reply started on A goes on when its client leaves; B shows it from the start and live, to the end", async () => {
        const [a, b] = apps;
        const { account, cookie } = await user();
        model.enqueue({ type: "text", text: WORDS, chunkDelayMs: 40 });
        const started = await startReply(a, cookie, "Count to thirty", "w3");
        started.client.abort(); // the tab is closed
        await started.reader.cancel().catch(() => undefined);

        // B: the page lists it as still writing, and the reply is read from its first word to its end.
        const page = await fetch(
          `${b.origin}/nuvara/${started.body.conversationId}?_data=routes%2Fnuvara.%24conversationId`,
          { headers: { Cookie: cookie } },
        );
        expect(page.status).toBe(200);
        expect((await page.json()).running).toMatchObject({
          runId: started.runId,
          userMessage: { id: started.body.message.id, text: "Count to thirty" },
        });
        const chunks = await (await readUntil(await follow(b, cookie, started.runId), () => false)).rest();
        expect(replyText(chunks)).toBe(WORDS);
        expect(dataOf<SavedExchange>(chunks, "saved")).toMatchObject({ status: "completed", replyId: started.runId });

        expect((await stored(started.body.conversationId)).map((row) => [row.role, row.status])).toEqual([
          ["user", null],
          ["assistant", "completed"],
        ]);
        await expect(model.requests.at(-1)!.outcome).resolves.toBe("completed");
        expect(await messagesToday(account.uid)).toBe(1);
        // Fewer writes than chunks: the events went to PostgreSQL in batches (at most one per 250 ms).
        const { rows } = await sql.query<{ batches: number }>("select batches from reply_runs where id = $1", [
          started.runId,
        ]);
        expect(rows[0].batches).toBeGreaterThan(1);
        expect(rows[0].batches).toBeLessThan(30 / 2);
      });

      it("the conversation list open on B hears a reply on A start and end", async () => {
        const [a, b] = apps;
        const { cookie } = await user();
        const list = followConversationEvents(
          await fetch(`${b.origin}/api/conversations/events`, { headers: { Cookie: cookie } }),
        );
        try {
          await waitUntil("the list's snapshot of running replies", () => list.events.length > 0);
          model.enqueue({ type: "text", text: "one two three", chunkDelayMs: 40 });
          const started = await startReply(a, cookie, "Say three words", "one");
          await started.reader.cancel().catch(() => undefined);
          const heard = (type: string) => () =>
            list.events.some((event) => event.type === type && "runId" in event && event.runId === started.runId);
          await waitUntil("B's list to hear the reply start", heard("run-started"));
          await waitUntil("B's list to hear the reply end", heard("run-ended"));
          expect(list.events.find((event) => event.type === "run-ended")).toMatchObject({ status: "completed" });
        } finally {
          await list.close();
        }
      });

      it("Stop on B stops the model request on A; every reader sees it stored, stopped", async () => {
        const [a, b, c] = apps;
        const { account, cookie } = await user();
        model.enqueue({ type: "text", text: WORDS, chunkDelayMs: 80 });
        const started = await startReply(a, cookie, "Count slowly", "w2");
        const onC = readUntil(await follow(c, cookie, started.runId), () => false);

        const asked = await stop(b, cookie, started.body.message.id);
        expect(asked.status).toBe(200);
        await waitUntil("the model request on A to be aborted", () => model.abortedCount === 1, 5_000);

        const seenOnC = await (await onC).rest();
        expect(dataOf<SavedExchange>(seenOnC, "saved")).toMatchObject({ status: "stopped" });
        const rows = await stored(started.body.conversationId);
        expect(rows[1].status).toBe("stopped");
        expect(rows[1].content).toMatch(/^w1 w2/);
        expect(rows[1].content).not.toContain("w30");
        expect(await messagesToday(account.uid)).toBe(1);
      });

      it("A killed mid-reply: B marks it interrupted within the lease, keeps the partial text, counts it once; no text: free", async () => {
        const [a, b, c] = apps;
        const { account, cookie } = await user();
        model.enqueue({ type: "text", text: WORDS, chunkDelayMs: 150 });
        const started = await startReply(a, cookie, "Count very slowly", "w3");
        await waitUntil("the text so far to be in PostgreSQL", async () =>
          replyText(await storedChunks(started.runId)).includes("w3"),
        );
        // B follows it from PostgreSQL (it runs on A); C's sweeper or B's settles it.
        const reading = readUntil(await follow(b, cookie, started.runId), () => false);
        await started.reader.cancel().catch(() => undefined);
        const killedAt = Date.now();
        await a.kill("SIGKILL");

        const chunks = await (await reading).rest();
        const tookMs = Date.now() - killedAt;
        expect(dataOf<SavedExchange>(chunks, "saved")).toMatchObject({ status: "interrupted", replyId: started.runId });
        // Within the lease and one sweep (every half lease), well within a minute.
        expect(tookMs).toBeLessThan((LEASE_SECONDS * 1.5 + 3) * 1000);
        const rows = await stored(started.body.conversationId);
        expect(rows.map((row) => [row.role, row.status])).toEqual([
          ["user", null],
          ["assistant", "interrupted"],
        ]);
        expect(rows[1].content).toMatch(/^w1 w2 w3/);
        expect(rows[1].content).not.toContain("w30");
        expect(await messagesToday(account.uid)).toBe(1);
        const { rows: runs } = await sql.query("select status from reply_runs where id = $1", [started.runId]);
        expect(runs[0].status).toBe("interrupted");

        // The same with nothing shown: the model never answers, C is killed; the message is kept, the unit given back.
        model.enqueue({ type: "stall" });
        const silent = firstMessage("Are you there?");
        const response = await send(c, cookie, silent);
        expect(response.status).toBe(200);
        const head = await readUntil(response, (sofar) => dataOf(sofar, "run") !== undefined);
        const runId = dataOf<{ runId: string }>(head.chunks, "run")!.runId;
        await waitUntil(
          "the run to be recorded",
          async () => (await sql.query("select 1 from reply_runs where id = $1", [runId])).rows.length === 1,
        );
        expect(await messagesToday(account.uid)).toBe(2);
        await head.reader.cancel().catch(() => undefined);
        await c.kill("SIGKILL");
        await waitUntil(
          "B to settle C's run",
          async () =>
            (await sql.query("select status from reply_runs where id = $1", [runId])).rows[0]?.status === "interrupted",
          (LEASE_SECONDS * 1.5 + 3) * 1000,
        );
        expect((await stored(silent.conversationId)).map((row) => [row.role, row.status, row.content])).toEqual([
          ["user", null, "Are you there?"],
          ["assistant", "interrupted", ""],
        ]);
        expect(await messagesToday(account.uid)).toBe(1);
      });

      it("SIGTERM: new sends are refused, a short reply finishes, a long one is handed over as interrupted with its text", async () => {
        const d = await startApp({ env });
        const e = await startApp({ env });
        apps.push(d, e);
        const { cookie } = await user();
        model.enqueue({ type: "text", text: "s1 s2 s3 s4 s5 s6 s7 s8", chunkDelayMs: 250 });
        const short = await startReply(d, cookie, "Short one", "s1");
        const shortRest = readUntil(await follow(e, cookie, short.runId), () => false);
        model.enqueue({ type: "text", text: WORDS, chunkDelayMs: 300 });
        const long = await startReply(d, cookie, "Long one", "w1");
        const longRest = readUntil(await follow(e, cookie, long.runId), () => false);
        // The tabs that sent them go away; the replies do not.
        for (const started of [short, long]) await started.reader.cancel().catch(() => undefined);

        const exited = d.kill("SIGTERM");
        await waitUntil("the signal to be handled", () =>
          d.stderr().includes("SIGTERM: letting running replies finish"),
        );
        const refused = await send(d, cookie, firstMessage("One more")).then(
          async (response) => (await response.body?.cancel(), response.status),
          () => "refused",
        );
        // remix-serve stops listening; a request on a kept-alive connection gets the app's 503.
        expect([503, "refused"]).toContain(refused);

        expect(dataOf<SavedExchange>(await (await shortRest).rest(), "saved")).toMatchObject({ status: "completed" });
        const longChunks = await (await longRest).rest();
        expect(dataOf<SavedExchange>(longChunks, "saved")).toMatchObject({ status: "interrupted" });
        await exited;
        const rows = await stored(long.body.conversationId);
        expect(rows[1].status).toBe("interrupted");
        expect(rows[1].content).toMatch(/^w1/);
        expect((await stored(short.body.conversationId))[1]).toMatchObject({
          status: "completed",
          content: "s1 s2 s3 s4 s5 s6 s7 s8",
        });
      });
    },
  );
}
