import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Stripe billing (docs/decisions/073). The role itself stays where the
 * product reads it, users/{email}.stripeRole in Firestore; these tables say
 * which Stripe customer is which user, what each subscription grants, and
 * every event Stripe sent (the webhook is idempotent by event id).
 */

/** A user's Stripe customer, made at their first Checkout. */
export const billingCustomers = pgTable("billing_customers", {
  customerId: text("customer_id").primaryKey(),
  uid: text("uid").notNull().unique(),
  /** The email the customer was made with (the user's may change since; the role follows the uid). */
  email: text("email").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Each subscription as its latest event says; an older event that arrives later changes nothing. */
export const billingSubscriptions = pgTable(
  "billing_subscriptions",
  {
    subscriptionId: text("subscription_id").primaryKey(),
    customerId: text("customer_id").notNull(),
    uid: text("uid").notNull(),
    /** Stripe's status: active, trialing and past_due grant the role; the others do not. */
    status: text("status").notNull(),
    /** The role its price grants (PLANS); "" for a price no plan names. */
    role: text("role").notNull(),
    priceId: text("price_id"),
    /** The `created` time of the event this row is from (Stripe's clock). */
    eventAt: timestamp("event_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("billing_subscriptions_uid_idx").on(t.uid)],
);

/** Every event the webhook accepted, once (kept as the billing record: revenue per plan). */
export const stripeEvents = pgTable(
  "stripe_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    /** Stripe's `created` time of the event. */
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    customerId: text("customer_id"),
    uid: text("uid"),
    /** The role the event is about (a subscription's, or a paid invoice's plan). */
    role: text("role"),
    /** A paid invoice's amount, in the currency's smallest unit. */
    amount: bigint("amount", { mode: "number" }),
    currency: text("currency"),
    payload: jsonb("payload").notNull(),
  },
  (t) => [index("stripe_events_created_idx").on(t.createdAt)],
);
