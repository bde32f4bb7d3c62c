ALTER TABLE "messages" ADD COLUMN "cost_micro_usd" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "quota_reservations" ADD COLUMN "held_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "quota_reservations" ADD COLUMN "held_micro_usd" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "cost_micro_usd" bigint DEFAULT 0 NOT NULL;