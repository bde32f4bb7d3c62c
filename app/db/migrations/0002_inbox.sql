CREATE TABLE "inbox_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"sender_email" text NOT NULL,
	"sender_uid" text,
	"sender_name" text,
	"sender_role" text DEFAULT '' NOT NULL,
	"body" text NOT NULL,
	"report_reason" text,
	"exchange" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inbox_messages_kind_check" CHECK ("inbox_messages"."kind" in ('contact', 'report')),
	CONSTRAINT "inbox_messages_status_check" CHECK ("inbox_messages"."status" in ('new', 'read', 'archived')),
	CONSTRAINT "inbox_messages_report_check" CHECK (("inbox_messages"."kind" = 'report') = ("inbox_messages"."report_reason" is not null and "inbox_messages"."exchange" is not null))
);
--> statement-breakpoint
CREATE TABLE "role_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "role_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"actor_email" text NOT NULL,
	"actor_uid" text NOT NULL,
	"target_email" text NOT NULL,
	"old_role" text NOT NULL,
	"new_role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "inbox_messages_created_idx" ON "inbox_messages" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "inbox_messages_new_idx" ON "inbox_messages" USING btree ("created_at") WHERE "inbox_messages"."status" = 'new';--> statement-breakpoint
CREATE INDEX "inbox_messages_search_idx" ON "inbox_messages" USING gin (to_tsvector('simple', "sender_email" || ' ' || coalesce("sender_name", '') || ' ' || "body"));--> statement-breakpoint
CREATE INDEX "role_audit_created_idx" ON "role_audit" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);