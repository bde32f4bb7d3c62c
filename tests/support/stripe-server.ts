/**
 * A scripted Stripe API over real HTTP on 127.0.0.1, for the `stripe` SDK
 * (STRIPE_API_URL points it here): customers, Checkout sessions and portal
 * sessions, each recorded; a Checkout page with a Pay button that makes the
 * subscription and sends its webhook, signed with the SDK's own test-header
 * helper, before going back to the success URL (as Stripe does, the webhook
 * may come first). Tests also send events themselves with `sendEvent`.
 *
 *   tsx tests/support/stripe-server.ts --port 12111 --webhook-url http://127.0.0.1:3000/api/stripe/webhook --webhook-secret whsec_test
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import Stripe from "stripe";

/** The webhook secret the browser tests' app and scripted Stripe share (playwright.config.ts). */
export const E2E_STRIPE_WEBHOOK_SECRET = "whsec_e2e_scripted";

export interface RecordedStripeRequest {
  method: string;
  path: string;
  /** The form body as Stripe's SDK encodes it (nested keys flattened, e.g. "line_items[0][price]"). */
  form: Record<string, string>;
}

export interface StripeServer {
  url: string;
  readonly requests: readonly RecordedStripeRequest[];
  /** Signs and posts an event to the webhook; answers the webhook's status and body. */
  sendEvent(
    type: string,
    object: Record<string, unknown>,
    options?: { id?: string; created?: number; signature?: string },
  ): Promise<{ status: number; body: unknown; event: Record<string, unknown> }>;
  /** A subscription object as Stripe sends it. */
  subscription(fields: {
    id?: string;
    customer: string;
    price: string;
    status?: string;
    metadata?: Record<string, string>;
  }): Record<string, unknown>;
  /** The last Checkout session made for `customer`. */
  checkoutFor(customer: string): { id: string; price: string; successUrl: string } | undefined;
  /** Makes API calls answer 500 (Stripe is down) until set back to false. */
  failing: boolean;
  close(): Promise<void>;
}

export async function startStripeServer({
  port = 0,
  webhookUrl = "http://127.0.0.1/api/stripe/webhook",
  webhookSecret,
  deliver = (request) => fetch(request),
}: {
  port?: number;
  webhookUrl?: string;
  webhookSecret: string;
  /** How a webhook reaches the app: over HTTP by default; in-process tests call the route instead. */
  deliver?: (request: Request) => Promise<Response>;
}): Promise<StripeServer> {
  const requests: RecordedStripeRequest[] = [];
  const sessions = new Map<
    string,
    {
      id: string;
      customer: string;
      price: string;
      successUrl: string;
      cancelUrl: string;
      metadata: Record<string, string>;
    }
  >();
  let counter = 0;
  const next = (prefix: string) =>
    `${prefix}_test${(counter += 1).toString().padStart(6, "0")}${randomUUID().slice(0, 6)}`;
  let base = "";

  const subscription: StripeServer["subscription"] = ({ id, customer, price, status = "active", metadata = {} }) => ({
    id: id ?? next("sub"),
    object: "subscription",
    customer,
    status,
    metadata,
    items: {
      object: "list",
      data: [{ id: next("si"), object: "subscription_item", price: { id: price, object: "price" } }],
    },
  });

  async function sendEvent(
    type: string,
    object: Record<string, unknown>,
    options: { id?: string; created?: number; signature?: string } = {},
  ) {
    const event = {
      id: options.id ?? next("evt"),
      object: "event",
      api_version: "2025-01-01",
      created: options.created ?? Math.floor(Date.now() / 1000),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object },
    };
    const payload = JSON.stringify(event);
    const signature = options.signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const response = await deliver(
      new Request(webhookUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Stripe-Signature": signature },
        body: payload,
      }),
    );
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, body, event };
  }

  const server = createServer((req, res) => {
    void handle(req, res).catch((error) => {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", base);
    const body = await readBody(req);
    const form = Object.fromEntries(new URLSearchParams(body));
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json", "Request-Id": next("req") });
      res.end(JSON.stringify(value));
    };
    if (url.pathname.startsWith("/v1/")) {
      requests.push({ method: req.method ?? "GET", path: url.pathname, form });
      if (api.failing) return send(500, { error: { type: "api_error", message: "Scripted outage" } });
    }

    if (req.method === "POST" && url.pathname === "/v1/customers") {
      return send(200, {
        id: next("cus"),
        object: "customer",
        email: form.email ?? null,
        metadata: { uid: form["metadata[uid]"] },
      });
    }
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const id = next("cs");
      const metadata = {
        uid: form["subscription_data[metadata][uid]"] ?? "",
        role: form["subscription_data[metadata][role]"] ?? "",
      };
      sessions.set(id, {
        id,
        customer: form.customer,
        price: form["line_items[0][price]"],
        successUrl: form.success_url,
        cancelUrl: form.cancel_url,
        metadata,
      });
      return send(200, {
        id,
        object: "checkout.session",
        mode: "subscription",
        customer: form.customer,
        url: `${base}/checkout/${id}`,
      });
    }
    if (req.method === "POST" && url.pathname === "/v1/billing_portal/sessions") {
      const id = next("bps");
      return send(200, {
        id,
        object: "billing_portal.session",
        customer: form.customer,
        return_url: form.return_url,
        url: `${base}/portal/${id}?return=${encodeURIComponent(form.return_url ?? "")}`,
      });
    }

    // The pages a person sees at Stripe.
    const checkout = /^\/checkout\/([^/]+)(\/pay)?$/.exec(url.pathname);
    if (checkout) {
      const session = sessions.get(checkout[1]);
      if (!session) return send(404, { error: { message: "No such checkout session" } });
      if (req.method === "POST" && checkout[2]) {
        const created = subscription({ customer: session.customer, price: session.price, metadata: session.metadata });
        await sendEvent("customer.subscription.created", created);
        res.writeHead(303, { Location: session.successUrl });
        return res.end();
      }
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      return res.end(
        `<!doctype html><html lang="en"><title>Checkout (scripted Stripe)</title><main><h1>Pay for ${escapeHtml(session.price)}</h1>` +
          `<form method="post" action="/checkout/${session.id}/pay"><button type="submit">Pay</button></form>` +
          `<p><a href="${escapeHtml(session.cancelUrl)}">Cancel</a></p></main></html>`,
      );
    }
    const portal = /^\/portal\/([^/]+)$/.exec(url.pathname);
    if (portal) {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      return res.end(
        `<!doctype html><html lang="en"><title>Billing portal (scripted Stripe)</title><main><h1>Your subscription</h1><a href="${escapeHtml(url.searchParams.get("return") ?? "/")}">Return</a></main></html>`,
      );
    }
    return send(404, {
      error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${url.pathname})` },
    });
  }

  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const api: StripeServer = {
    url: base,
    requests,
    sendEvent,
    subscription,
    checkoutFor: (customer) => [...sessions.values()].reverse().find((session) => session.customer === customer),
    failing: false,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return api;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

// Run directly: a stand-in Stripe for the browser tests and manual runs.
if (process.argv[1] && import.meta.url === pathToFileURL(resolvePath(process.argv[1])).href) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(`--${name}`);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const server = await startStripeServer({
    port: Number(arg("port") ?? 12111),
    webhookUrl: arg("webhook-url") ?? "http://127.0.0.1:3000/api/stripe/webhook",
    webhookSecret: arg("webhook-secret") ?? "whsec_test",
  });
  console.log(`Scripted Stripe listening on ${server.url}`);
}
