-- A server's request for input from the user while its tool runs, and the answer (docs/decisions/095).
CREATE TABLE "tool_elicitations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"conversation_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"tool_call_id" text NOT NULL,
	"server_name" text NOT NULL,
	"message" text NOT NULL,
	"fields" jsonb NOT NULL,
	"status" text NOT NULL,
	"content" jsonb,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tool_elicitations_uid_idx" ON "tool_elicitations" USING btree ("uid");