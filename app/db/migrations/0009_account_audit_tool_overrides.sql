CREATE TABLE "account_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "account_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"actor_email" text NOT NULL,
	"actor_uid" text NOT NULL,
	"target_email" text NOT NULL,
	"target_uid" text NOT NULL,
	"action" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_audit_action_check" CHECK ("account_audit"."action" in ('disable', 'enable', 'sign-out-everywhere'))
);
--> statement-breakpoint
CREATE TABLE "prompt_tool_overrides" (
	"tool_id" text PRIMARY KEY NOT NULL,
	"name" text,
	"description" text,
	"category" text,
	"system_prompt" text,
	"input_fields" jsonb,
	"enabled" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "prompt_tool_overrides_content_check" CHECK ((name is null and description is null and category is null and system_prompt is null and input_fields is null)
        or (name is not null and description is not null and category is not null and system_prompt is not null
            and jsonb_typeof(input_fields) = 'array'))
);
--> statement-breakpoint
CREATE INDEX "account_audit_created_idx" ON "account_audit" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);