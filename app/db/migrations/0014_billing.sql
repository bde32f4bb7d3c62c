CREATE TABLE "billing_customers" (
	"customer_id" text PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "billing_customers_uid_unique" UNIQUE("uid")
);
--> statement-breakpoint
CREATE TABLE "billing_subscriptions" (
	"subscription_id" text PRIMARY KEY NOT NULL,
	"customer_id" text NOT NULL,
	"uid" text NOT NULL,
	"status" text NOT NULL,
	"role" text NOT NULL,
	"price_id" text,
	"event_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"customer_id" text,
	"uid" text,
	"role" text,
	"amount" bigint,
	"currency" text,
	"payload" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "billing_subscriptions_uid_idx" ON "billing_subscriptions" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "stripe_events_created_idx" ON "stripe_events" USING btree ("created_at");