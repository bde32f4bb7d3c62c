-- Memory across chats: short facts per user, saved by the model or by hand, and the switch to turn it off (docs/decisions/103).
CREATE TABLE "memories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"uid" text NOT NULL,
	"text" text NOT NULL,
	"source" text NOT NULL,
	"conversation_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "user_preferences" ADD COLUMN "memory_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX "memories_uid_idx" ON "memories" USING btree ("uid","updated_at" DESC NULLS FIRST);