CREATE TABLE "limit_refusals" (
	"uid" text NOT NULL,
	"day" date NOT NULL,
	"limit" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "limit_refusals_uid_day_limit_pk" PRIMARY KEY("uid","day","limit")
);
--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "role" text DEFAULT '' NOT NULL;