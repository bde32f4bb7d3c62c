-- Chats organised: pinned, archived, filed in folders; and temporary chats, deleted when left (docs/decisions/085).
CREATE TABLE "conversation_folders" (
	"id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "pinned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "archived_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "folder_id" uuid;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "temporary" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "conversation_folders_uid_idx" ON "conversation_folders" USING btree ("uid");--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_folder_id_conversation_folders_id_fk" FOREIGN KEY ("folder_id") REFERENCES "public"."conversation_folders"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversations_temporary_created_idx" ON "conversations" USING btree ("created_at") WHERE "conversations"."temporary";