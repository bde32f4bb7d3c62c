-- Notices kept as rows for instances that cannot LISTEN behind a transaction pooler (docs/decisions/097).
CREATE TABLE "polled_notices" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "polled_notices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"channel" text NOT NULL,
	"payload" text NOT NULL,
	"origin" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "polled_notices_created_idx" ON "polled_notices" USING btree ("created_at");