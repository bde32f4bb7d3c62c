-- Imports of chat history from ChatGPT, Claude.ai or this app's own export: the jobs, their conversations waiting, and the chats they made (docs/decisions/104).
CREATE TABLE "import_items" (
	"job_id" uuid NOT NULL,
	"ordinal" integer NOT NULL,
	"source_id" text NOT NULL,
	"title" text NOT NULL,
	"conversation" jsonb,
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text,
	CONSTRAINT "import_items_job_id_ordinal_pk" PRIMARY KEY("job_id","ordinal")
);
--> statement-breakpoint
CREATE TABLE "import_jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"source" text NOT NULL,
	"file_name" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"total" integer NOT NULL,
	"imported" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"message" text,
	"storage_limit_bytes" bigint NOT NULL,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "imported_conversations" (
	"conversation_id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"source" text NOT NULL,
	"source_id" text NOT NULL,
	"bytes" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "import_items" ADD CONSTRAINT "import_items_job_id_import_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."import_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imported_conversations" ADD CONSTRAINT "imported_conversations_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "import_jobs_uid_idx" ON "import_jobs" USING btree ("uid","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "import_jobs_unfinished_idx" ON "import_jobs" USING btree ("created_at") WHERE "import_jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "imported_conversations_source_idx" ON "imported_conversations" USING btree ("uid","source","source_id");