import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRole, writeRole } from "~/auth/roles.server";
import { getDb } from "~/db/client.server";
import { billingCustomers, stripeEvents } from "~/db/schema";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor, setAppEnv } from "../support/app-env";
import type { TestAccount } from "../support/identity";
import { captureLogs } from "../support/log-capture";
import { appHandler } from "../support/remix-app";
import { startStripeServer, type StripeServer } from "../support/stripe-server";

/**
 * Plans sold through Stripe (docs/decisions/073), end to end in-process: the
 * real `stripe` SDK against the scripted Stripe server over HTTP, webhooks
 * signed with the SDK's test-header helper and delivered to the app's route.
 */
const SECRET = "whsec_scripted_test_secret";
const PRO = "price_pro123";
const TEAM = "price_team456";

const firebase = admin();
let stripe: StripeServer;
let handle: (request: Request) => Promise<Response>;
let restoreEnv: () => void;

beforeAll(async () => {
  handle = await appHandler();
  stripe = await startStripeServer({
    webhookSecret: SECRET,
    webhookUrl: `${APP_ORIGIN}/api/stripe/webhook`,
    deliver: async (request) =>
      handle(
        appRequest("/api/stripe/webhook", { method: "POST", headers: request.headers, body: await request.text() }),
      ),
  });
  restoreEnv = setAppEnv({
    AUTH_CACHE_TTL_SECONDS: "30",
    STRIPE_SECRET_KEY: "sk_test_scripted",
    STRIPE_WEBHOOK_SECRET: SECRET,
    STRIPE_API_URL: stripe.url,
    PLANS: JSON.stringify([
      { name: "Pro", role: "pro", price: "$20 a month", stripePrice: PRO },
      { name: "Team", role: "team", price: "$50 a month", stripePrice: TEAM },
    ]),
  });
});

afterAll(async () => {
  restoreEnv();
  await stripe.close();
  await firebase.close();
});

function post(path: string, form: Record<string, string>, cookie: string) {
  return handle(
    appRequest(path, {
      method: "POST",
      cookie,
      headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    }),
  );
}

/** The role the app shows on the next page (the root loader), through this instance's caches. */
async function shownRole(cookie: string): Promise<string> {
  const response = await handle(appRequest("/?_data=root", { cookie }));
  return ((await response.json()) as { role: string }).role;
}

/** Subscribe on /pricing, then pay on the scripted Checkout page (which sends the webhook). */
async function subscribe(account: TestAccount, cookie: string, plan = "pro") {
  const response = await post("/pricing", { intent: "subscribe", plan }, cookie);
  expect(response.status).toBe(302);
  const checkout = response.headers.get("Location")!;
  expect(checkout.startsWith(`${stripe.url}/checkout/`)).toBe(true);
  const paid = await fetch(`${checkout}/pay`, { method: "POST", redirect: "manual" });
  expect(paid.status).toBe(303);
  expect(paid.headers.get("Location")).toBe(`${APP_ORIGIN}/pricing?checkout=done`);
  const db = await getDb();
  const [customer] = await db.select().from(billingCustomers).where(eq(billingCustomers.uid, account.uid));
  return customer.customerId;
}

async function signedIn() {
  const account = await createAccount(firebase, {});
  const cookie = await sessionCookieFor(account);
  return { account, cookie };
}

describe("Stripe plans", () => {
  it("Subscribe goes through Checkout; the webhook sets stripeRole and the next page shows it at once", async () => {
    const { account, cookie } = await signedIn();
    expect(await shownRole(cookie)).toBe(""); // now cached for 30 s
    const customer = await subscribe(account, cookie);

    const made = stripe.requests.find(
      (request) => request.path === "/v1/customers" && request.form["metadata[uid]"] === account.uid,
    );
    expect(made?.form.email).toBe(account.email);
    const session = stripe.requests.find(
      (request) => request.path === "/v1/checkout/sessions" && request.form.customer === customer,
    );
    expect(session?.form).toMatchObject({
      mode: "subscription",
      "line_items[0][price]": PRO,
      client_reference_id: account.uid,
    });

    expect(await readRole(account.email)).toBe("pro");
    expect(await shownRole(cookie)).toBe("pro"); // the cache was evicted, not waited out

    // Manage opens the customer portal for this customer.
    const manage = await post("/pricing", { intent: "manage" }, cookie);
    expect(manage.status).toBe(302);
    expect(manage.headers.get("Location")).toMatch(new RegExp(`^${stripe.url}/portal/`));
    expect(stripe.requests.at(-1)?.form).toMatchObject({ customer, return_url: `${APP_ORIGIN}/pricing` });
  });

  it("an unsigned or badly signed event is refused 400 and changes nothing", async () => {
    const { account, cookie } = await signedIn();
    const customer = await subscribe(account, cookie);
    const ended = stripe.subscription({ customer, price: PRO, status: "canceled" });
    const forged = await stripe.sendEvent("customer.subscription.deleted", ended, { signature: "t=1,v1=deadbeef" });
    expect(forged.status).toBe(400);
    const wrongSecret = await stripe.sendEvent("customer.subscription.deleted", ended, {
      signature: (await import("stripe")).default.webhooks.generateTestHeaderString({
        payload: "{}",
        secret: "whsec_other",
      }),
    });
    expect(wrongSecret.status).toBe(400);
    const unsigned = await handle(
      appRequest("/api/stripe/webhook", { method: "POST", body: JSON.stringify(forged.event) }),
    );
    expect(unsigned.status).toBe(400);
    const db = await getDb();
    expect(
      await db
        .select()
        .from(stripeEvents)
        .where(eq(stripeEvents.id, String(forged.event.id))),
    ).toEqual([]);
    expect(await readRole(account.email)).toBe("pro");
  });

  it("a replayed event is applied once; an older event arriving late changes nothing", async () => {
    const { account, cookie } = await signedIn();
    const customer = await subscribe(account, cookie);
    const now = Math.floor(Date.now() / 1000);
    const sub = stripe.subscription({ customer, price: TEAM });
    const upgraded = await stripe.sendEvent("customer.subscription.created", sub, { created: now + 10 });
    expect(upgraded.status).toBe(200);
    expect(await readRole(account.email)).toBe("team"); // the later plan in PLANS wins

    const ended = await stripe.sendEvent(
      "customer.subscription.deleted",
      { ...sub, status: "canceled" },
      { created: now + 20 },
    );
    expect(ended.status).toBe(200);
    expect(await readRole(account.email)).toBe("pro"); // the Pro subscription still runs

    // The creation again (same event id): a replay, nothing happens.
    const replay = await stripe.sendEvent("customer.subscription.created", sub, {
      id: String(upgraded.event.id),
      created: now + 10,
    });
    expect(replay).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    // An "active" update from before the deletion, delivered late: ignored.
    const late = await stripe.sendEvent(
      "customer.subscription.updated",
      { ...sub, status: "active" },
      { created: now + 15 },
    );
    expect(late.status).toBe(200);
    expect(await readRole(account.email)).toBe("pro");
  });

  it("a correctly signed event with data null (or no object) is answered 200 with a warning and kept as handled", async () => {
    const Stripe = (await import("stripe")).default;
    const deliver = (event: Record<string, unknown>) => {
      const payload = JSON.stringify(event);
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
      return handle(
        appRequest("/api/stripe/webhook", {
          method: "POST",
          headers: { "Stripe-Signature": signature, "Content-Type": "application/json" },
          body: payload,
        }),
      );
    };
    const created = Math.floor(Date.now() / 1000);
    const events = [
      { id: `evt_null_${randomUUID()}`, object: "event", type: "customer.subscription.updated", created, data: null },
      { id: `evt_noobject_${randomUUID()}`, object: "event", type: "invoice.paid", created, data: { object: null } },
      { id: `evt_nodata_${randomUUID()}`, object: "event", type: "customer.deleted", created },
    ];
    const logs = captureLogs();
    try {
      for (const event of events) {
        const first = await deliver(event);
        expect(first.status, event.id).toBe(200);
        expect(await first.json()).toEqual({ received: true });
        // Stripe's retry of it: already handled.
        const again = await deliver(event);
        expect(again.status).toBe(200);
        expect(await again.json()).toEqual({ received: true, duplicate: true });
      }
    } finally {
      logs.restore();
    }
    const db = await getDb();
    for (const event of events)
      expect(
        await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, event.id)),
      ).toHaveLength(1);
    const warnings = logs.entries().filter((entry) => entry.level === 40);
    expect(warnings.map((entry) => entry.event).sort()).toEqual(events.map((event) => event.id).sort());
  });

  it("a deleted customer loses the plan's role, and an admin is never demoted by Stripe", async () => {
    const { account, cookie } = await signedIn();
    const customer = await subscribe(account, cookie);
    const deleted = await stripe.sendEvent("customer.deleted", { id: customer, object: "customer", deleted: true });
    expect(deleted.status).toBe(200);
    expect(await readRole(account.email)).toBe("");
    const db = await getDb();
    expect(await db.select().from(billingCustomers).where(eq(billingCustomers.customerId, customer))).toEqual([]);

    const boss = await signedIn();
    const bossCustomer = await subscribe(boss.account, boss.cookie);
    await writeRole(boss.account.email, "admin");
    const ended = await stripe.sendEvent(
      "customer.subscription.deleted",
      stripe.subscription({ customer: bossCustomer, price: PRO, status: "canceled" }),
    );
    expect(ended.status).toBe(200);
    expect(await readRole(boss.account.email)).toBe("admin");
  });

  it("after an email change the role follows the account to its new address", async () => {
    const { account, cookie } = await signedIn();
    const customer = await subscribe(account, cookie);
    const newEmail = `moved-${account.email}`;
    await firebase.auth.updateUser(account.uid, { email: newEmail });
    const renewed = await stripe.sendEvent(
      "customer.subscription.updated",
      stripe.subscription({ customer, price: TEAM }),
    );
    expect(renewed.status).toBe(200);
    expect(await readRole(newEmail)).toBe("team");
    // Nobody has the old address now: the plan's role does not stay there for whoever takes it next.
    expect(await readRole(account.email)).toBe("");
  });

  it("when Stripe is down, Subscribe says so and nothing changes", async () => {
    const { account, cookie } = await signedIn();
    stripe.failing = true;
    try {
      const response = await post("/pricing", { intent: "subscribe", plan: "pro" }, cookie);
      expect(response.status).toBe(503);
      expect(await response.text()).toMatch(/Stripe can't be reached right now/);
    } finally {
      stripe.failing = false;
    }
    expect(await readRole(account.email)).toBe("");
  });
});

describe("without Stripe", () => {
  it("/pricing lists the plans with no Subscribe, says an admin grants them, and the webhook refuses events", async () => {
    const restore = setAppEnv({
      STRIPE_SECRET_KEY: "",
      STRIPE_WEBHOOK_SECRET: "",
      PLANS: JSON.stringify([{ name: "Pro", role: "pro", price: "$20 a month" }]),
    });
    try {
      const { cookie } = await signedIn();
      const page = await handle(appRequest("/pricing?_data=routes%2Fpricing", { cookie }));
      const data = (await page.json()) as { stripe: boolean; plans: Array<{ name: string; forSale: boolean }> };
      expect(data.stripe).toBe(false);
      expect(data.plans).toEqual([expect.objectContaining({ name: "Pro", forSale: false })]);
      const html = await (await handle(appRequest("/pricing", { cookie }))).text();
      expect(html).toContain("Plans are granted by an admin here");
      expect(html).not.toContain("Subscribe to");
      const refused = await post("/pricing", { intent: "subscribe", plan: "pro" }, cookie);
      expect(refused.status).toBe(400);
      const webhook = await handle(
        appRequest("/api/stripe/webhook", { method: "POST", headers: { "Stripe-Signature": "t=1,v1=x" }, body: "{}" }),
      );
      expect(webhook.status).toBe(400);
    } finally {
      restore();
    }
  });
});
