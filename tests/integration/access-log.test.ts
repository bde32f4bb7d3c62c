import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConversation } from "~/data/conversations.server";
import { saveExchange } from "~/data/messages.server";
import { createShare, newShareId } from "~/data/shares.server";
import { getDb } from "~/db/client.server";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { launchScript, type LaunchedScript } from "../support/start-process";
import { waitUntil } from "./chat-support";

/**
 * remix-serve's access log as operators run it (docs/decisions/077): the
 * built app under `remix-serve build/index.js`, and under `npm start`. A
 * conversation search and a share link's id (the link's whole secret) are
 * requested; neither may appear in what the server prints.
 */

const SEARCH = `secret-term-${randomUUID()}`;
/** morgan's "tiny" line: METHOD URL STATUS LENGTH - TIME ms. */
const ACCESS_LINE = /^[A-Z]+ \S+ \S+ \S+ - \S+ ms$/;

/** The access-log lines, but the start's health checks (their lines may come after the server is taken for ready). */
function accessLines(output: string): string[] {
  return output.split("\n").filter((line) => ACCESS_LINE.test(line) && !line.startsWith("GET /healthz "));
}

/** A real, open share link of a conversation with one exchange. */
async function openShareId(): Promise<string> {
  const db = await getDb();
  const uid = `access-log-${randomUUID()}`;
  const { id } = await createConversation(db, { uid, title: "Logged?" });
  await saveExchange(db, {
    uid,
    conversationId: id,
    kind: "submit",
    user: { id: randomUUID(), text: "Is this logged?", sentAt: new Date() },
    reply: {
      id: randomUUID(),
      parts: [{ type: "text", text: "Not the link." }],
      content: "Not the link.",
      status: "completed",
      model: "demo",
      inputTokens: 1,
      outputTokens: 1,
    },
    usageDay: new Date().toISOString().slice(0, 10),
    title: "Logged?",
  });
  return (await createShare(db, { uid, conversationId: id, displayName: null }))!.id;
}

describe("remix-serve build/index.js", () => {
  let app: AppProcess | undefined;
  let shareId: string;
  beforeAll(async () => {
    shareId = await openShareId();
    await buildApp();
    app = await startApp({ stdout: true, env: { LOG_LEVEL: "info", LOG_FORMAT: "json" } });
  }, 180_000);
  afterAll(async () => {
    await app?.kill("SIGTERM");
  });

  it("prints each request's path without its query string, and a share link as /s/…", async () => {
    const origin = app!.origin;
    const get = (path: string) => fetch(`${origin}${path}`, { redirect: "manual" });
    const before = accessLines(app!.stdout()).length;

    expect((await get(`/nuvara?q=${SEARCH}`)).status).toBe(302);
    expect((await get(`/nuvara?q=${SEARCH}&_data=routes%2Fnuvara`)).status).toBeLessThan(500);
    const page = await get(`/s/${shareId}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Not the link.");
    for (const path of [
      `/s/${shareId}?_data=routes%2Fs.%24shareId`,
      `/S/${shareId}`,
      `/s/${shareId}/files/${randomUUID()}`,
    ])
      await (await get(path)).arrayBuffer();
    const revoke = await fetch(`${origin}/api/shares/${shareId}`, {
      method: "POST",
      headers: { Origin: origin, "Content-Type": "application/x-www-form-urlencoded" },
      body: "intent=revoke",
      redirect: "manual",
    });
    await revoke.arrayBuffer();
    const sent = 7;

    await waitUntil("every request's access-log line", () => accessLines(app!.stdout()).length >= before + sent);
    const lines = accessLines(app!.stdout()).slice(before);
    expect(lines[0]).toMatch(/^GET \/nuvara 302 /);
    expect(lines[2]).toMatch(/^GET \/s\/… 200 /);
    expect(lines).toContainEqual(expect.stringMatching(/^POST \/api\/shares\/… \d{3} /));

    const printed = app!.stdout();
    expect(printed).not.toContain(SEARCH);
    expect(printed).not.toContain(shareId);
    expect(printed).not.toContain("?");

    // The app's own lines are untouched, on stderr: JSON under the page's request id, naming its route, never its path.
    const requestId = page.headers.get("X-Request-Id")!;
    await waitUntil("the share page's log lines", () => app!.stderr().includes(requestId));
    const own = app!
      .stderr()
      .split("\n")
      .filter((line) => line.includes(requestId))
      .map((line) => JSON.parse(line) as { route: string });
    expect(own.map((line) => line.route).sort()).toEqual(["root", "routes/s.$shareId"]);
    expect(app!.stderr()).not.toContain(shareId);
    expect(app!.stderr()).not.toContain(SEARCH);
  });
});

describe("npm start", () => {
  let started: LaunchedScript | undefined;
  beforeAll(async () => {
    await buildApp();
    started = await launchScript("scripts/start.ts", { args: ["--fresh"], env: { LOG_LEVEL: "info" } });
  }, 300_000);
  afterAll(() => started?.stop());

  it("prints the same access log: no search, no share id", async () => {
    const shareId = newShareId();
    const before = accessLines(started!.output()).length;
    for (const path of [`/nuvara?q=${SEARCH}`, `/s/${shareId}`])
      await (await fetch(`${started!.origin}${path}`, { redirect: "manual" })).arrayBuffer();

    await waitUntil("both requests' access-log lines", () => accessLines(started!.output()).length >= before + 2);
    const lines = accessLines(started!.output()).slice(before);
    expect(lines[0]).toMatch(/^GET \/nuvara 302 /);
    expect(lines[1]).toMatch(/^GET \/s\/… 404 /);
    expect(started!.output()).not.toContain(SEARCH);
    expect(started!.output()).not.toContain(shareId);
  });
});
