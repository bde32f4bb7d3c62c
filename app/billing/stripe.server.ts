import Stripe from "stripe";
import { getConfig } from "~/config.server";

/**
 * The Stripe client, when Stripe is configured (docs/decisions/073).
 * STRIPE_API_URL points it at a local stand-in (the tests' scripted Stripe
 * server); otherwise it talks to Stripe itself.
 */
let client: { key: string; stripe: Stripe } | undefined;

export function stripeConfigured(): boolean {
  return getConfig().stripe !== undefined;
}

export function stripeClient(): Stripe {
  const settings = getConfig().stripe;
  if (!settings) throw new Error("Stripe is not configured");
  const key = `${settings.secretKey} ${settings.apiUrl ?? ""}`;
  if (client?.key !== key) {
    const url = settings.apiUrl;
    client = {
      key,
      stripe: new Stripe(settings.secretKey, {
        // A person is waiting on each call (Subscribe, Manage): fail in seconds, not minutes.
        timeout: 10_000,
        maxNetworkRetries: 1,
        telemetry: false,
        ...(url
          ? {
              protocol: url.protocol === "https:" ? ("https" as const) : ("http" as const),
              host: url.hostname,
              port: url.port || (url.protocol === "https:" ? 443 : 80),
            }
          : {}),
      }),
    };
  }
  return client.stripe;
}

/** Verifies a webhook's signature and parses it; throws when it is not Stripe's. */
export function verifiedEvent(payload: string, signature: string): Stripe.Event {
  const settings = getConfig().stripe;
  if (!settings) throw new Error("Stripe is not configured");
  return Stripe.webhooks.constructEvent(payload, signature, settings.webhookSecret);
}

export type { Stripe };
