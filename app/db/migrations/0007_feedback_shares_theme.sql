CREATE TABLE "message_feedback" (
	"message_id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"rating" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_feedback_rating" CHECK ("message_feedback"."rating" in (1, -1))
);
--> statement-breakpoint
CREATE TABLE "shared_conversations" (
	"id" text PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"conversation_id" uuid,
	"title" text NOT NULL,
	"display_name" text,
	"snapshot" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "user_preferences" ADD COLUMN "theme" text DEFAULT 'system' NOT NULL;--> statement-breakpoint
ALTER TABLE "message_feedback" ADD CONSTRAINT "message_feedback_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shared_conversations" ADD CONSTRAINT "shared_conversations_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_feedback_updated_idx" ON "message_feedback" USING btree ("updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "shared_conversations_uid_idx" ON "shared_conversations" USING btree ("uid","created_at" DESC NULLS LAST);