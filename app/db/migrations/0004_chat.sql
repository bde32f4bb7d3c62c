CREATE TABLE "conversations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"title" text,
	"model" text,
	"system_prompt" text,
	"custom_instructions" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"conversation_id" uuid NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "messages_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"role" text NOT NULL,
	"parts" jsonb NOT NULL,
	"content" text NOT NULL,
	"status" text,
	"model" text,
	"input_tokens" integer,
	"output_tokens" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "messages_reply_status" CHECK (("messages"."role" = 'assistant' and "messages"."status" is not null) or ("messages"."role" = 'user' and "messages"."status" is null))
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"uid" text NOT NULL,
	"day" date NOT NULL,
	"messages" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_uid_day_pk" PRIMARY KEY("uid","day"),
	CONSTRAINT "usage_daily_messages_nonnegative" CHECK ("usage_daily"."messages" >= 0)
);
--> statement-breakpoint
CREATE TABLE "user_preferences" (
	"uid" text PRIMARY KEY NOT NULL,
	"custom_instructions" text DEFAULT '' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_tool_settings" (
	"uid" text NOT NULL,
	"tool_id" text NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_tool_settings_uid_tool_id_pk" PRIMARY KEY("uid","tool_id")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversations_uid_updated_idx" ON "conversations" USING btree ("uid","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "messages_conversation_seq_idx" ON "messages" USING btree ("conversation_id","seq");