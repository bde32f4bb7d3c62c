import { getConfig } from "~/config.server";
import { customerOf, saveCustomer } from "~/data/billing.server";
import type { Db } from "~/db/client.server";
import type { Plan } from "~/settings/plan-settings";
import { stripeClient } from "./stripe.server";

/**
 * Subscribe and Manage on /pricing (docs/decisions/073): Stripe Checkout for a
 * plan, and the customer portal. Both answer a URL at Stripe to send the user to.
 * The role is set by the webhook, when Stripe says the subscription exists.
 */

export interface Buyer {
  uid: string;
  email: string;
}

/** The user's Stripe customer, made at their first Checkout (the webhook finds the user by it). */
async function customerFor(db: Db, buyer: Buyer): Promise<string> {
  const known = await customerOf(db, buyer.uid);
  if (known) return known;
  const customer = await stripeClient().customers.create(
    { email: buyer.email, metadata: { uid: buyer.uid } },
    // Two Subscribe clicks at once make one customer.
    { idempotencyKey: `customer-${buyer.uid}` },
  );
  return saveCustomer(db, { customerId: customer.id, uid: buyer.uid, email: buyer.email.toLowerCase() });
}

export async function checkoutUrl(db: Db, buyer: Buyer, plan: Plan, origin: string): Promise<string> {
  if (!plan.stripePrice) throw new Error(`plan ${plan.name} has no stripePrice`);
  const customer = await customerFor(db, buyer);
  const session = await stripeClient().checkout.sessions.create({
    mode: "subscription",
    customer,
    client_reference_id: buyer.uid,
    line_items: [{ price: plan.stripePrice, quantity: 1 }],
    subscription_data: { metadata: { uid: buyer.uid, role: plan.role } },
    success_url: `${origin}/pricing?checkout=done`,
    cancel_url: `${origin}/pricing?checkout=cancelled`,
  });
  if (!session.url) throw new Error("Stripe gave no Checkout URL");
  return session.url;
}

/** The customer portal (change plan, cancel, invoices); undefined for a user who never subscribed. */
export async function portalUrl(db: Db, uid: string, origin: string): Promise<string | undefined> {
  const customer = await customerOf(db, uid);
  if (!customer) return undefined;
  const session = await stripeClient().billingPortal.sessions.create({ customer, return_url: `${origin}/pricing` });
  return session.url;
}

/** Where Stripe sends the user back to: APP_URL when set (behind a proxy), else the request's own origin. */
export function appOrigin(request: Request): string {
  return getConfig().appOrigin ?? new URL(request.url).origin;
}
