import { createHmac } from "node:crypto";
import { and, eq, like, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CONTACT_WORK_BITS, issueContactChallenge } from "~/data/contact-work.server";
import { getDb } from "~/db/client.server";
import { inboxMessages, rateLimits } from "~/db/schema";
import { action as contactAction } from "~/routes/api.contact";
import { admin, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import { solveInNode, visitorWork, workFields } from "../support/contact-work";
import { postForm, postJson, respond, uniqueText } from "./admin-support";

/**
 * Without TRUST_PROXY there is no client address: before docs/decisions/076
 * one client could spend the allowance visitors share (and that unverified
 * accounts shared with them) in seconds and shut the form for everyone. Now
 * a visitor's message counts only with valid work for a challenge the page
 * issued, each challenge once; unverified accounts have an allowance of
 * their own.
 */
const ENV = {
  CONTACT_RATE_LIMIT_PER_EMAIL: "3",
  // 60 an hour, at most 6 a minute (a tenth of it), for visitors and for unverified accounts alike.
  CONTACT_RATE_LIMIT_OVERALL: "60",
  TRUST_PROXY: "0",
};
const firebase = admin();
let restoreEnv: () => void;
beforeAll(() => {
  restoreEnv = setAppEnv(ENV);
});
afterAll(async () => {
  restoreEnv();
  await firebase.close();
});

beforeEach(async () => {
  const db = await getDb();
  await db
    .delete(rateLimits)
    .where(sql`${rateLimits.key} like 'contact:%' and ${rateLimits.key} not like 'contact:pow:%'`);
});

const send = (request: Request) => respond(contactAction, request);
const visitor = (fields: Record<string, string>) => ({
  email: `${uniqueText("v")}@example.com`,
  message: "hello",
  ...fields,
});

async function stored(marker: string) {
  const db = await getDb();
  return db
    .select()
    .from(inboxMessages)
    .where(like(inboxMessages.body, `%${marker}%`));
}

/** This window's count of a shared allowance (0 when nothing was counted). */
async function counted(key: string): Promise<number> {
  const db = await getDb();
  const rows = await db
    .select({ count: rateLimits.count })
    .from(rateLimits)
    .where(and(eq(rateLimits.key, key), sql`${rateLimits.windowStart} > now() - interval '1 hour'`));
  return rows.reduce((sum, row) => sum + row.count, 0);
}

/** Uses up this hour's allowance of `key`, as a long attack would. */
async function spendHour(key: string) {
  const db = await getDb();
  await db.execute(sql`
    insert into rate_limits (key, window_start, count)
    values (${key}, to_timestamp(floor(extract(epoch from now()) / 3600) * 3600), ${Number(ENV.CONTACT_RATE_LIMIT_OVERALL)})
    on conflict (key, window_start) do update set count = excluded.count`);
}

/** A token signed with a key that is not the server's: what a client making its own challenges sends. */
function forged(difficulty: number): string {
  const payload = ["w1", "forged-challenge-id-0", difficulty, Math.floor(Date.now() / 1000) + 600].join(".");
  return `${payload}.${createHmac("sha256", "not-the-secret").update(payload).digest("base64url")}`;
}

describe("a visitor's message needs work for a challenge the page issued", () => {
  it("a flood without valid work is refused and spends none of the visitors' allowance; a visitor with work then gets through", async () => {
    const marker = uniqueText("flood");
    const real = await issueContactChallenge(await getDb());
    const floods: Array<Record<string, string>> = [
      {}, // no work at all: what a script posting the form sends
      { challenge: real.token, nonce: "" },
      { challenge: real.token, nonce: "not-a-number" },
      { challenge: `${real.token.slice(0, -2)}xx`, nonce: solveInNode(real) }, // its signature changed
      { challenge: forged(1), nonce: solveInNode({ token: forged(1), difficulty: 1 }) }, // an easy challenge of its own
      { challenge: "w1.a.14.9999999999.b", nonce: "1" },
    ];
    // A wrong nonce for a real challenge (one that does not meet it).
    for (let nonce = 0; floods.length < 8; nonce++) {
      if (String(nonce) !== solveInNode(real)) floods.push({ challenge: real.token, nonce: String(nonce) });
    }
    for (let round = 0; round < 15; round++) {
      for (const work of floods) {
        const response = await send(postForm("/api/contact", visitor({ message: `spam ${marker}`, ...work })));
        expect(response.status).toBe(400);
        expect((await response.json()).work).toMatch(/^(missing|invalid)$/);
      }
    }
    expect(await stored(marker)).toHaveLength(0);
    expect(await counted("contact:visitors")).toBe(0);
    expect(await counted("contact:visitors:minute")).toBe(0);

    const welcome = await send(
      postForm("/api/contact", visitor({ message: `real ${marker}`, ...(await visitorWork()) })),
    );
    expect(welcome.status).toBe(201);
    expect(await stored(`real ${marker}`)).toHaveLength(1);
    expect(await counted("contact:visitors")).toBe(1);
  });

  it("a challenge counts once: replayed, even with another address or message, it is refused and spends nothing", async () => {
    const marker = uniqueText("replay");
    const work = await visitorWork();
    expect((await send(postForm("/api/contact", visitor({ message: `first ${marker}`, ...work })))).status).toBe(201);
    for (const again of [
      visitor({ message: `first ${marker}`, ...work }),
      visitor({ message: `second ${marker}`, ...work }),
    ]) {
      const replayed = await send(postForm("/api/contact", again));
      expect(replayed.status).toBe(400);
      expect(await replayed.json()).toMatchObject({
        work: "used",
        error: "That check was used already. Please send your message again.",
      });
    }
    expect(await stored(marker)).toHaveLength(1);
    expect(await counted("contact:visitors")).toBe(1);
  });

  it("an expired challenge is refused", async () => {
    const old = await issueContactChallenge(await getDb(), Date.now() - 2 * 60 * 60 * 1000);
    const response = await send(postForm("/api/contact", visitor(workFields(old))));
    expect(response.status).toBe(400);
    expect((await response.json()).work).toBe("expired");
  });

  it("asks for a modest amount of work, and a new challenge on every page load", async () => {
    const first = await issueContactChallenge(await getDb());
    const second = await issueContactChallenge(await getDb());
    expect(first.difficulty).toBe(CONTACT_WORK_BITS);
    expect(CONTACT_WORK_BITS).toBeLessThanOrEqual(16);
    expect(first.token).not.toBe(second.token);
  });

  it("a post without JavaScript goes back to the page saying sending needs it", async () => {
    const response = await send(
      postForm("/api/contact", visitor({ message: "plain" }), {
        headers: { Accept: "text/html", "Sec-Fetch-Mode": "navigate", Referer: "http://app.test/" },
      }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/?contact=needs-script#contact");
  });
});

describe("accounts whose address is not verified have an allowance of their own", () => {
  it("they still send when the visitors' allowance is spent, and their messages do not count against it", async () => {
    await spendHour("contact:visitors");
    const marker = uniqueText("unverified");
    const cookie = await sessionCookieFor(await createAccount(firebase, { verified: false }));
    expect((await send(postJson("/api/contact", { message: `${marker} one` }, { cookie }))).status).toBe(201);
    expect(await stored(marker)).toHaveLength(1);
    expect(await counted("contact:visitors:minute")).toBe(0);
    expect(await counted("contact:unverified")).toBe(1);
    // A visitor, meanwhile, is refused: that allowance is spent.
    expect((await send(postForm("/api/contact", visitor(await visitorWork())))).status).toBe(429);
  });

  it("visitors still send when the unverified accounts' allowance is spent", async () => {
    await spendHour("contact:unverified");
    const cookie = await sessionCookieFor(await createAccount(firebase, { verified: false }));
    expect((await send(postJson("/api/contact", { message: "refused" }, { cookie }))).status).toBe(429);
    expect((await send(postForm("/api/contact", visitor(await visitorWork())))).status).toBe(201);
    // A verified account is limited as itself only.
    const verified = await sessionCookieFor(await createAccount(firebase));
    expect((await send(postJson("/api/contact", { message: "hello" }, { cookie: verified }))).status).toBe(201);
  });

  it("each is limited per account, and needs no work", async () => {
    const cookie = await sessionCookieFor(await createAccount(firebase, { verified: false }));
    for (let i = 0; i < 3; i++)
      expect((await send(postJson("/api/contact", { message: `mine ${i}` }, { cookie }))).status).toBe(201);
    expect((await send(postJson("/api/contact", { message: "one too many" }, { cookie }))).status).toBe(429);
    // Another unverified account is not affected.
    const other = await sessionCookieFor(await createAccount(firebase, { verified: false }));
    expect((await send(postJson("/api/contact", { message: "mine" }, { cookie: other }))).status).toBe(201);
  });
});
