CREATE TABLE "prompt_tools" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"system_prompt" text NOT NULL,
	"input_fields" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "prompt_tools_fields_check" CHECK (jsonb_typeof("prompt_tools"."input_fields") = 'array')
);
--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_tools_name_idx" ON "prompt_tools" USING btree (lower("name"));