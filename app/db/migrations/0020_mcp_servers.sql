-- MCP servers an admin connects on the Tools area, with the roles that may use them (docs/decisions/090).
CREATE TABLE "mcp_servers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"auth_kind" text DEFAULT 'none' NOT NULL,
	"header_name" text,
	"header_value_sealed" text,
	"roles" text[] DEFAULT '{*}'::text[] NOT NULL,
	"tool_roles" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"tools" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"listed_at" timestamp with time zone,
	"last_error" text,
	"added_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_servers_auth_check" CHECK ("mcp_servers"."auth_kind" in ('none', 'header')),
	CONSTRAINT "mcp_servers_header_check" CHECK (("mcp_servers"."auth_kind" = 'header') = ("mcp_servers"."header_name" is not null and "mcp_servers"."header_value_sealed" is not null))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_servers_name_idx" ON "mcp_servers" USING btree (lower("name"));