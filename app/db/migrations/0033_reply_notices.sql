-- Telling people a reply is done: push subscriptions per device, visible tabs, the once-only claim of each notice, and the notice preferences (docs/decisions/101).
CREATE TABLE "push_subscriptions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"device" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "push_subscriptions_endpoint_unique" UNIQUE("endpoint")
);
--> statement-breakpoint
CREATE TABLE "reply_notices" (
	"run_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"outcome" text,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reply_notices_run_id_kind_pk" PRIMARY KEY("run_id","kind")
);
--> statement-breakpoint
CREATE TABLE "tab_presence" (
	"uid" text NOT NULL,
	"tab" uuid NOT NULL,
	"visible_until" timestamp with time zone NOT NULL,
	CONSTRAINT "tab_presence_uid_tab_pk" PRIMARY KEY("uid","tab")
);
--> statement-breakpoint
ALTER TABLE "user_preferences" ADD COLUMN "notify_preview" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "user_preferences" ADD COLUMN "notify_email" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "reply_notices" ADD CONSTRAINT "reply_notices_run_id_reply_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."reply_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "push_subscriptions_uid_idx" ON "push_subscriptions" USING btree ("uid","created_at");