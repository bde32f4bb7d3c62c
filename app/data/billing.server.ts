import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { billingCustomers, billingSubscriptions, stripeEvents } from "~/db/schema";
import type { Tx } from "./account-lock.server";

/** Stripe customers, subscriptions and events in PostgreSQL (docs/decisions/073). */

type Conn = Db | Tx;

/** Subscription statuses that grant the plan's role (past_due: Stripe is still retrying the payment). */
export const GRANTING_STATUSES = ["active", "trialing", "past_due"] as const;

export async function customerOf(db: Conn, uid: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: billingCustomers.customerId })
    .from(billingCustomers)
    .where(eq(billingCustomers.uid, uid));
  return row?.id;
}

export async function ownerOfCustomer(
  db: Conn,
  customerId: string,
): Promise<{ uid: string; email: string } | undefined> {
  const [row] = await db
    .select({ uid: billingCustomers.uid, email: billingCustomers.email })
    .from(billingCustomers)
    .where(eq(billingCustomers.customerId, customerId));
  return row;
}

/** Links a new Stripe customer to the user; returns the user's customer (an earlier one wins a race). */
export async function saveCustomer(
  db: Db,
  customer: { customerId: string; uid: string; email: string },
): Promise<string> {
  await db.insert(billingCustomers).values(customer).onConflictDoNothing();
  return (await customerOf(db, customer.uid)) ?? customer.customerId;
}

export async function updateCustomerEmail(db: Conn, customerId: string, email: string): Promise<void> {
  await db.update(billingCustomers).set({ email }).where(eq(billingCustomers.customerId, customerId));
}

export interface StoredEvent {
  id: string;
  type: string;
  createdAt: Date;
  customerId: string | null;
  uid: string | null;
  role: string | null;
  amount: number | null;
  currency: string | null;
  payload: unknown;
}

/** Stores an event once; false when it was stored before (a replay: nothing more to do). */
export async function recordEvent(tx: Conn, event: StoredEvent): Promise<boolean> {
  const inserted = await tx.insert(stripeEvents).values(event).onConflictDoNothing().returning({ id: stripeEvents.id });
  return inserted.length === 1;
}

export interface SubscriptionState {
  subscriptionId: string;
  customerId: string;
  uid: string;
  status: string;
  role: string;
  priceId: string | null;
  eventAt: Date;
}

/**
 * Records what a subscription event says, unless a later event was already
 * applied (Stripe does not promise order): true when it changed the row.
 */
export async function applySubscription(tx: Conn, state: SubscriptionState): Promise<boolean> {
  const applied = await tx
    .insert(billingSubscriptions)
    .values(state)
    .onConflictDoUpdate({
      target: billingSubscriptions.subscriptionId,
      set: {
        status: state.status,
        role: state.role,
        priceId: state.priceId,
        eventAt: state.eventAt,
        updatedAt: sql`now()`,
      },
      setWhere: sql`${billingSubscriptions.eventAt} <= ${state.eventAt.toISOString()}::timestamptz`,
    })
    .returning({ id: billingSubscriptions.subscriptionId });
  return applied.length === 1;
}

/** A deleted customer: every subscription of theirs ends, and the link to the user goes. */
export async function endCustomer(tx: Conn, customerId: string, at: Date): Promise<void> {
  await tx
    .update(billingSubscriptions)
    .set({ status: "canceled", eventAt: at, updatedAt: sql`now()` })
    .where(
      and(
        eq(billingSubscriptions.customerId, customerId),
        sql`${billingSubscriptions.eventAt} <= ${at.toISOString()}::timestamptz`,
      ),
    );
  await tx.delete(billingCustomers).where(eq(billingCustomers.customerId, customerId));
}

/** The roles the user's live subscriptions grant. */
export async function grantedRoles(tx: Conn, uid: string): Promise<string[]> {
  const rows = await tx
    .select({ role: billingSubscriptions.role })
    .from(billingSubscriptions)
    .where(and(eq(billingSubscriptions.uid, uid), inArray(billingSubscriptions.status, [...GRANTING_STATUSES])));
  return rows.map((row) => row.role).filter(Boolean);
}
