import { eq, like, sql } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";

// Small limits, read when the app first reads its configuration (lazily, below).
const ENV = {
  CONTACT_RATE_LIMIT_PER_EMAIL: "3",
  CONTACT_RATE_LIMIT_PER_ADDRESS: "4",
  // Visitors together: 60 an hour, so at most 6 a minute (a tenth of it).
  CONTACT_RATE_LIMIT_OVERALL: "60",
  TRUST_PROXY: "1",
};
Object.assign(process.env, ENV);

import { getDb } from "~/db/client.server";
import { inboxMessages, rateLimits } from "~/db/schema";
import { action as contactAction, loader as contactLoader } from "~/routes/api.contact";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { postForm, postJson, respond, uniqueText } from "./admin-support";
import { captureLogs } from "../support/log-capture";
import { visitorWork } from "../support/contact-work";

const firebase = admin();
afterAll(async () => {
  for (const name of Object.keys(ENV)) delete process.env[name];
  await firebase.close();
});

const send = (request: Request) => respond(contactAction, request);

/** A visitor's form post, with the work their browser does first (docs/decisions/076). */
async function visitorPost(path: string, fields: Record<string, string>, init?: Parameters<typeof postForm>[2]) {
  return postForm(path, { ...fields, ...(await visitorWork()) }, init);
}

async function stored(marker: string) {
  const db = await getDb();
  return db
    .select()
    .from(inboxMessages)
    .where(like(inboxMessages.body, `%${marker}%`));
}

// Each test starts with fresh counters: the limits are per hour.
beforeEach(async () => {
  const db = await getDb();
  await db.delete(rateLimits).where(sql`${rateLimits.key} like 'contact:%'`);
});

/** Uses up this hour's allowance shared by all visitors, as a long attack would. */
async function spendVisitorsHour() {
  const db = await getDb();
  await db.execute(sql`
    insert into rate_limits (key, window_start, count)
    values ('contact:visitors', to_timestamp(floor(extract(epoch from now()) / 3600) * 3600), ${Number(ENV.CONTACT_RATE_LIMIT_OVERALL)})
    on conflict (key, window_start) do update set count = excluded.count`);
}

describe("POST /api/contact", () => {
  it("a signed-out visitor's message is stored with the typed email, status new, role none", async () => {
    const marker = uniqueText("visitor");
    const response = await send(
      await visitorPost("/api/contact?_data=routes%2Fapi.contact", {
        email: " Visitor@Example.com ",
        name: "Vera",
        message: `Hello ${marker}`,
      }),
    );
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ ok: true });
    const [row] = await stored(marker);
    expect(row).toMatchObject({
      kind: "contact",
      status: "new",
      senderEmail: "visitor@example.com",
      senderName: "Vera",
      senderUid: null,
      senderRole: "",
      body: `Hello ${marker}`,
    });
  });

  it("a signed-in user's identity and role come from the session, not the form", async () => {
    const account = await createAccount(firebase, { role: "premium", displayName: "Paula" });
    const cookie = await sessionCookieFor(account);
    const marker = uniqueText("member");
    const response = await send(
      postJson("/api/contact", { email: "someone-else@example.com", message: marker }, { cookie }),
    );
    expect(response.status).toBe(201);
    const [row] = await stored(marker);
    expect(row).toMatchObject({
      senderEmail: account.email,
      senderUid: account.uid,
      senderName: "Paula",
      senderRole: "premium",
    });
  });

  it("bad input gets 400 with an error per field, and nothing is stored", async () => {
    const marker = uniqueText("bad");
    const cases: Array<[Record<string, string>, Record<string, RegExp>]> = [
      [{ message: marker }, { email: /email address/ }],
      [{ email: "not-an-email", message: marker }, { email: /valid email/ }],
      [{ email: "a@example.com", message: "   " }, { message: /write a message/ }],
      [{ email: "a@example.com", message: `${marker}${"x".repeat(5_001)}` }, { message: /5,000 characters/ }],
      [{ email: "a@example.com", name: "n".repeat(101), message: marker }, { name: /100 characters/ }],
    ];
    for (const [fields, errors] of cases) {
      const response = await send(postForm("/api/contact", fields));
      expect(response.status).toBe(400);
      const body = await response.json();
      for (const [field, pattern] of Object.entries(errors)) expect(body.fieldErrors[field]).toMatch(pattern);
    }
    expect(await stored(marker)).toHaveLength(0);
  });

  it("a NUL byte or a broken Unicode character → 400 saying so, nothing stored, nothing logged as a fault (docs/security.md)", async () => {
    // Fault lines go to the app's logger (ADR 052): none at error level.
    const logs = captureLogs();
    try {
      const marker = uniqueText("nul");
      const cookie = await sessionCookieFor(await createAccount(firebase));
      const cases: Array<[Request, string]> = [
        [postJson("/api/contact", { email: "a@example.com", message: `a\u0000b ${marker}` }), "message"],
        [postJson("/api/contact", { email: "a@example.com", message: `a\ud800b ${marker}` }), "message"],
        [postJson("/api/contact", { email: "a@example.com", name: "N\u0000", message: marker }), "name"],
        [postJson("/api/contact", { message: `a\u0000b ${marker}` }, { cookie }), "message"],
        // A form cannot carry a lone surrogate (its bytes decode to U+FFFD), but it can carry a NUL.
        [postForm("/api/contact", { email: "a@example.com", message: `a\u0000b ${marker}` }), "message"],
      ];
      for (const [request, field] of cases) {
        const response = await send(request);
        expect(response.status).toBe(400);
        expect((await response.json()).fieldErrors[field]).toMatch(/cannot be stored/);
      }
      expect(await stored(marker)).toHaveLength(0);
      expect(logs.entries().filter((entry) => entry.level >= 50)).toEqual([]);
    } finally {
      logs.restore();
    }
  });

  it("the honeypot: a filled hidden field looks like success to the bot, and nothing is stored", async () => {
    const marker = uniqueText("bot");
    const response = await send(
      postForm("/api/contact", { email: "bot@example.com", message: marker, website: "http://spam.example" }),
    );
    expect(response.status).toBe(201);
    expect(await stored(marker)).toHaveLength(0);
  });

  it("rate limit per email address: 429 with Retry-After and plain words", async () => {
    const email = `${uniqueText("often")}@example.com`;
    for (let i = 0; i < 3; i++) {
      expect((await send(await visitorPost("/api/contact", { email, message: `try ${i}` }))).status).toBe(201);
    }
    const limited = await send(await visitorPost("/api/contact", { email, message: "one too many" }));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await limited.json()).error).toMatch(
      /^You've sent a lot of messages in a short time\. Please try again in/,
    );
    // Another address is not affected.
    expect(
      (await send(await visitorPost("/api/contact", { email: `${uniqueText("other")}@example.com`, message: "hi" })))
        .status,
    ).toBe(201);
  });

  it("rate limit per client address (behind a trusted proxy)", async () => {
    const headers = { "X-Forwarded-For": "203.0.113.7, 10.0.0.1" };
    for (let i = 0; i < 4; i++) {
      const response = await send(
        await visitorPost("/api/contact", { email: `${uniqueText("ip")}@example.com`, message: "hi" }, { headers }),
      );
      expect(response.status).toBe(201);
    }
    const limited = await send(
      await visitorPost("/api/contact", { email: `${uniqueText("ip")}@example.com`, message: "hi" }, { headers }),
    );
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toMatch(/^\d+$/);
    const elsewhere = await send(
      await visitorPost(
        "/api/contact",
        { email: `${uniqueText("ip")}@example.com`, message: "hi" },
        { headers: { "X-Forwarded-For": "198.51.100.9" } },
      ),
    );
    expect(elsewhere.status).toBe(201);
  });

  it("visitors share a burst limit per minute: one client cannot take the hour's allowance at once", async () => {
    for (let i = 0; i < 6; i++) {
      expect(
        (await send(await visitorPost("/api/contact", { email: `${uniqueText("burst")}@example.com`, message: "hi" })))
          .status,
      ).toBe(201);
    }
    const limited = await send(
      await visitorPost("/api/contact", { email: `${uniqueText("burst")}@example.com`, message: "hi" }),
    );
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
  });

  it("visitors share an hourly allowance", async () => {
    await spendVisitorsHour();
    const limited = await send(
      await visitorPost("/api/contact", { email: `${uniqueText("all")}@example.com`, message: "hi" }),
    );
    expect(limited.status).toBe(429);
  });

  it("a burst of visitors' messages from distinct addresses does not shut the form for signed-in users (ADR 048)", async () => {
    // The attack: distinct addresses defeat the per-address limit, so one client sends until refused…
    let refusedAfter = 0;
    while (refusedAfter < 100) {
      const response = await send(
        await visitorPost("/api/contact", { email: `${uniqueText("spam")}@example.com`, message: "spam" }),
      );
      if (response.status === 429) break;
      expect(response.status).toBe(201);
      refusedAfter += 1;
    }
    expect(refusedAfter).toBeLessThan(100);
    // …and a verified customer still gets through, even when the whole hour's visitor allowance is spent.
    const customer = await createAccount(firebase);
    const cookie = await sessionCookieFor(customer);
    const marker = uniqueText("customer");
    const first = await send(postJson("/api/contact", { message: `${marker} one` }, { cookie }));
    expect(first.status).toBe(201);
    await spendVisitorsHour();
    expect((await send(postJson("/api/contact", { message: `${marker} two` }, { cookie }))).status).toBe(201);
    expect(await stored(marker)).toHaveLength(2);
  });

  it("a signed-in sender is limited per account (and the visitors' allowance is not used)", async () => {
    const cookie = await sessionCookieFor(await createAccount(firebase));
    // The per-email limit (3 here) applies to an account as a whole.
    for (let i = 0; i < 3; i++)
      expect((await send(postJson("/api/contact", { message: `mine ${i}` }, { cookie }))).status).toBe(201);
    expect((await send(postJson("/api/contact", { message: "one too many" }, { cookie }))).status).toBe(429);
    // Visitors still have all of this minute's allowance.
    for (let i = 0; i < 6; i++) {
      expect(
        (await send(await visitorPost("/api/contact", { email: `${uniqueText("after")}@example.com`, message: "hi" })))
          .status,
      ).toBe(201);
    }
  });

  it("an unverified account is not a verified one: it shares an allowance, but its own, not the visitors' (docs/decisions/076)", async () => {
    await spendVisitorsHour();
    const cookie = await sessionCookieFor(await createAccount(firebase, { verified: false }));
    expect((await send(postJson("/api/contact", { message: "hello" }, { cookie }))).status).toBe(201);
    const db = await getDb();
    await db.execute(sql`
      insert into rate_limits (key, window_start, count)
      values ('contact:unverified', to_timestamp(floor(extract(epoch from now()) / 3600) * 3600), ${Number(ENV.CONTACT_RATE_LIMIT_OVERALL)})
      on conflict (key, window_start) do update set count = excluded.count`);
    expect((await send(postJson("/api/contact", { message: "again" }, { cookie }))).status).toBe(429);
  });

  it("refuses cross-origin posts, oversized bodies and other methods", async () => {
    const crossSite = appRequest("/api/contact", {
      method: "POST",
      headers: { Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "a@example.com", message: "hi" }),
    });
    expect((await send(crossSite)).status).toBe(403);

    const huge = await send(postForm("/api/contact", { email: "a@example.com", message: "x".repeat(70_000) }));
    expect(huge.status).toBe(413);
    expect((await huge.json()).error).toMatch(/too large/);

    const badJson = appRequest("/api/contact", {
      method: "POST",
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/json" },
      body: "{nope",
    });
    expect((await send(badJson)).status).toBe(400);

    expect((await respond(contactLoader, appRequest("/api/contact"))).status).toBe(405);
  });

  it("a plain form post goes back to its page with the outcome", async () => {
    const marker = uniqueText("nojs");
    const response = await send(
      await visitorPost(
        "/api/contact",
        { email: "plain@example.com", message: marker },
        {
          headers: { Accept: "text/html", "Sec-Fetch-Mode": "navigate", Referer: `${APP_ORIGIN}/dashboard?x=1` },
        },
      ),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/dashboard?x=1&contact=sent#contact");
    expect(await stored(marker)).toHaveLength(1);

    const foreign = await send(
      postForm(
        "/api/contact",
        { message: "no email" },
        { headers: { Accept: "text/html", Referer: "https://evil.example/x" } },
      ),
    );
    expect(foreign.headers.get("Location")).toBe("/#contact");
  });

  it("markup in a message is stored exactly as typed (the pages render it as text)", async () => {
    const marker = uniqueText("xss");
    const text = `<script>alert("${marker}")</script><img src=x onerror=alert(1)>`;
    expect((await send(await visitorPost("/api/contact", { email: "x@example.com", message: text }))).status).toBe(201);
    const [row] = await stored(marker);
    expect(row.body).toBe(text);
    const db = await getDb();
    await db.delete(inboxMessages).where(eq(inboxMessages.id, row.id));
  });
});
