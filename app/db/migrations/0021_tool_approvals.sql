-- Approval before a server's tool acts: the record of every call, chats that allowed a tool, and the policies (docs/decisions/091).
CREATE TABLE "chat_tool_allowances" (
	"conversation_id" uuid NOT NULL,
	"uid" text NOT NULL,
	"switch_id" text NOT NULL,
	"granted_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_tool_allowances_conversation_id_switch_id_pk" PRIMARY KEY("conversation_id","switch_id")
);
--> statement-breakpoint
CREATE TABLE "tool_calls" (
	"id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"email" text,
	"conversation_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"tool_call_id" text NOT NULL,
	"server_id" uuid,
	"server_name" text NOT NULL,
	"tool" text NOT NULL,
	"title" text NOT NULL,
	"arguments" jsonb NOT NULL,
	"policy" text NOT NULL,
	"status" text NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"outcome" text,
	"duration_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "user_tool_settings" ADD COLUMN "approval" text;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "tool_policies" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "chat_tool_allowances_uid_idx" ON "chat_tool_allowances" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "tool_calls_created_idx" ON "tool_calls" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "tool_calls_uid_idx" ON "tool_calls" USING btree ("uid");