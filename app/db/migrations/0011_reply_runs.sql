CREATE TABLE "reply_run_events" (
	"run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"chunks" jsonb NOT NULL,
	CONSTRAINT "reply_run_events_run_id_seq_pk" PRIMARY KEY("run_id","seq")
);
--> statement-breakpoint
CREATE TABLE "reply_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"conversation_id" uuid NOT NULL,
	"user_message_id" uuid NOT NULL,
	"exchange" jsonb NOT NULL,
	"model" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"instance" text NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"stop_requested" boolean DEFAULT false NOT NULL,
	"batches" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "reply_run_events" ADD CONSTRAINT "reply_run_events_run_id_reply_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."reply_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reply_runs_running_idx" ON "reply_runs" USING btree ("uid","conversation_id") WHERE "reply_runs"."status" = 'running';--> statement-breakpoint
CREATE INDEX "reply_runs_lease_idx" ON "reply_runs" USING btree ("lease_until") WHERE "reply_runs"."status" = 'running';--> statement-breakpoint
CREATE INDEX "reply_runs_ended_idx" ON "reply_runs" USING btree ("ended_at");