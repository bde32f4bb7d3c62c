import { json } from "@remix-run/node";
import { publishInvalidation, type Invalidation } from "~/auth/invalidation.server";
import { getConfig } from "~/config.server";
import {
  applySubscription,
  endCustomer,
  grantedRoles,
  ownerOfCustomer,
  recordEvent,
  updateCustomerEmail,
} from "~/data/billing.server";
import { readRole, writeRole } from "~/auth/roles.server";
import type { Tx } from "~/data/account-lock.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { adminAuth } from "~/firebase.server";
import { readCapped } from "~/http/body-limit.server";
import { log } from "~/log/logger.server";
import { verifiedEvent, type Stripe } from "./stripe.server";

/**
 * POST /api/stripe/webhook (docs/decisions/073).
 *
 *   400 Stripe not configured, no signature, or a signature that does not match: nothing changes
 *   200 accepted (also for a replay of an event already handled, events we do not act on, and
 *       a signed event with no object to read: it could never be applied, so it is kept as handled
 *       with a warning instead of failing on every one of Stripe's retries)
 *   500 the event could not be applied (a store failed): nothing is kept, so Stripe sends it again
 *
 * Each event is applied in one transaction with its record in stripe_events:
 * the record is what makes the webhook idempotent, so it commits only when
 * the role write did. Subscription events keep the latest state by Stripe's
 * event time (older events arriving later change nothing), and the user's
 * role becomes what their live subscriptions grant.
 */

/** Stripe's events are small; a body past this is not one. */
export const STRIPE_EVENT_MAX_BYTES = 512 * 1024;

export async function handleStripeWebhook(request: Request): Promise<Response> {
  let bytes: Uint8Array | undefined;
  try {
    // Counted while read: whatever the headers say, no more than an event's worth is taken in.
    bytes = await readCapped(request, STRIPE_EVENT_MAX_BYTES);
  } catch {
    return refuse("The body could not be read.");
  }
  if (!bytes) return json({ error: "The request is too large to be a Stripe event." }, { status: 413 });
  if (!getConfig().stripe) return refuse("Stripe is not configured on this server.");
  const signature = request.headers.get("stripe-signature");
  if (!signature) return refuse("The Stripe-Signature header is missing.");
  const payload = new TextDecoder().decode(bytes);
  let event: Stripe.Event;
  try {
    event = verifiedEvent(payload, signature);
  } catch {
    return refuse("The signature does not match this webhook's secret.");
  }

  try {
    const db = await getDb();
    const changed: Invalidation[] = [];
    const fresh = await db.transaction((tx) => applyEvent(tx, event, changed));
    // After the commit: other instances then read what was committed (and the notice needs a connection of its own).
    for (const message of changed) await publishInvalidation(message);
    return json({ received: true, ...(fresh ? {} : { duplicate: true }) });
  } catch (error) {
    logBackendFault("stripe", `applying Stripe event ${event.type}`, error);
    return json({ error: "The event could not be applied; send it again." }, { status: 500 });
  }
}

function refuse(error: string) {
  return json({ error }, { status: 400 });
}

/** Applies one event; false when it was applied before. */
async function applyEvent(tx: Tx, event: Stripe.Event, changed: Invalidation[]): Promise<boolean> {
  const at = new Date(event.created * 1000);
  const base = {
    id: event.id,
    type: event.type,
    createdAt: at,
    payload: event as unknown,
    amount: null,
    currency: null,
    role: null,
  };
  if (!hasObject(event)) {
    const fresh = await recordEvent(tx, { ...base, customerId: null, uid: null });
    if (fresh)
      log().warn(
        { event: event.id, type: event.type },
        "a signed Stripe event without data.object: kept, nothing applied",
      );
    return fresh;
  }

  switch (event.type) {
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
    case "customer.subscription.paused":
    case "customer.subscription.resumed": {
      const subscription = event.data.object;
      const customerId = idOf(subscription.customer);
      const owner = await ownerOfCustomer(tx, customerId);
      const uid = owner?.uid ?? subscription.metadata?.uid ?? null;
      const priceId = subscription.items.data[0]?.price.id ?? null;
      const role = roleOfPrice(priceId);
      if (!(await recordEvent(tx, { ...base, customerId, uid, role }))) return false;
      if (!uid) {
        log().warn(
          { customer: customerId, event: event.id },
          "a Stripe subscription for a customer no user is linked to: kept, no role set",
        );
        return true;
      }
      const status = event.type === "customer.subscription.deleted" ? "canceled" : subscription.status;
      const applied = await applySubscription(tx, {
        subscriptionId: subscription.id,
        customerId,
        uid,
        status,
        role,
        priceId,
        eventAt: at,
      });
      if (applied) await syncRole(tx, changed, uid, customerId);
      return true;
    }
    case "customer.deleted": {
      const customerId = event.data.object.id;
      const owner = await ownerOfCustomer(tx, customerId);
      if (!(await recordEvent(tx, { ...base, customerId, uid: owner?.uid ?? null }))) return false;
      if (owner) {
        await endCustomer(tx, customerId, at);
        await syncRole(tx, changed, owner.uid, undefined, owner.email);
      }
      return true;
    }
    case "invoice.paid": {
      // Revenue per plan (the admin usage page): what was paid, for which plan's price.
      const invoice = event.data.object;
      const customerId = invoice.customer ? idOf(invoice.customer) : null;
      const owner = customerId ? await ownerOfCustomer(tx, customerId) : undefined;
      const line = invoice.lines?.data?.[0] as
        { pricing?: { price_details?: { price?: string } }; price?: { id?: string } } | undefined;
      const priceId = line?.pricing?.price_details?.price ?? line?.price?.id ?? null;
      return recordEvent(tx, {
        ...base,
        customerId,
        uid: owner?.uid ?? null,
        role: roleOfPrice(priceId),
        amount: invoice.amount_paid,
        currency: invoice.currency,
      });
    }
    default: {
      const object = event.data.object as { customer?: unknown };
      const customerId = typeof object.customer === "string" ? object.customer : null;
      return recordEvent(tx, { ...base, customerId, uid: null });
    }
  }
}

/** Whether the event carries the object every case below reads (signed is not the same as well formed). */
function hasObject(event: Stripe.Event): boolean {
  const data = (event as { data?: unknown }).data;
  const object = data && typeof data === "object" ? (data as { object?: unknown }).object : undefined;
  return typeof object === "object" && object !== null;
}

function idOf(value: string | { id: string }): string {
  return typeof value === "string" ? value : value.id;
}

/** The role the plan selling this price grants; "" for a price no plan sells. */
export function roleOfPrice(priceId: string | null): string {
  return getConfig().plans.find((plan) => plan.stripePrice && plan.stripePrice === priceId)?.role ?? "";
}

/**
 * Makes users/{email}.stripeRole what the user's live subscriptions grant
 * (the later plan in PLANS when several do). The email is the account's
 * current one (it may have changed since the customer was made), read from
 * Firebase Auth; a plan role left on the old address is cleared unless
 * someone uses that address now. An admin is never changed, and a role no
 * plan grants (set by an admin) is not cleared when a subscription ends.
 */
async function syncRole(
  tx: Tx,
  changed: Invalidation[],
  uid: string,
  customerId?: string,
  knownEmail?: string,
): Promise<void> {
  const plans = getConfig().plans.map((plan) => plan.role);
  const granted = await grantedRoles(tx, uid);
  const role = plans.filter((candidate) => granted.includes(candidate)).at(-1) ?? "";
  const timeout = getConfig().backendTimeoutMs;

  const user = await withDeadline("identity", timeout, adminAuth().getUser(uid)).catch((error: unknown) => {
    if ((error as { code?: string }).code === "auth/user-not-found") return null;
    throw error;
  });
  const email = user?.email?.toLowerCase();
  const previous = customerId ? (await ownerOfCustomer(tx, customerId))?.email : knownEmail;
  if (previous && previous !== email) {
    if (await clearPlanRole(previous, plans, timeout)) changed.push({ email: previous, reason: "role" });
    if (customerId && email) await updateCustomerEmail(tx, customerId, email);
  }
  if (!email) return; // the account is gone: nothing to grant

  const current = await withDeadline("firestore", timeout, readRole(email));
  if (current === "admin" || current === role) return;
  // Ending a subscription takes away only a plan's role, never one an admin gave.
  if (role === "" && !plans.includes(current)) return;
  await withDeadline("firestore", timeout, writeRole(email, role));
  changed.push({ uid, email, reason: "role" });
  log().info({ uid, from: current, to: role }, "a Stripe subscription changed a role");
}

/** Clears a plan's role left on an address nobody uses now; true when it did. */
async function clearPlanRole(email: string, plans: string[], timeout: number): Promise<boolean> {
  const taken = await withDeadline("identity", timeout, adminAuth().getUserByEmail(email)).then(
    () => true,
    (error: unknown) => {
      if ((error as { code?: string }).code === "auth/user-not-found") return false;
      throw error;
    },
  );
  if (taken) return false;
  const role = await withDeadline("firestore", timeout, readRole(email));
  if (!plans.includes(role)) return false;
  await withDeadline("firestore", timeout, writeRole(email, ""));
  return true;
}
