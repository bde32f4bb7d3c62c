-- Servers each user signs in to (OAuth): the admin's client on the server, the client registered per server, users' sealed tokens and their unfinished sign-ins (docs/decisions/092).
CREATE TABLE "mcp_oauth_clients" (
	"server_id" uuid PRIMARY KEY NOT NULL,
	"issuer" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_sealed" text,
	"registration" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_oauth_pending" (
	"state" text PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"server_id" uuid NOT NULL,
	"code_verifier_sealed" text NOT NULL,
	"client_sealed" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"discovery" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_oauth_tokens" (
	"uid" text NOT NULL,
	"server_id" uuid NOT NULL,
	"access_token_sealed" text,
	"refresh_token_sealed" text,
	"token_type" text DEFAULT 'Bearer' NOT NULL,
	"expires_at" timestamp with time zone,
	"scope" text,
	"client_id" text NOT NULL,
	"discovery" jsonb,
	"reconnect_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_oauth_tokens_uid_server_id_pk" PRIMARY KEY("uid","server_id")
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" DROP CONSTRAINT "mcp_servers_auth_check";--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "oauth_client_id" text;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "oauth_client_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "mcp_oauth_clients" ADD CONSTRAINT "mcp_oauth_clients_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_oauth_pending" ADD CONSTRAINT "mcp_oauth_pending_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_oauth_tokens" ADD CONSTRAINT "mcp_oauth_tokens_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_oauth_pending_uid_idx" ON "mcp_oauth_pending" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "mcp_oauth_pending_created_idx" ON "mcp_oauth_pending" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "mcp_oauth_tokens_server_idx" ON "mcp_oauth_tokens" USING btree ("server_id");--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_oauth_client_check" CHECK (("mcp_servers"."oauth_client_id" is null or "mcp_servers"."auth_kind" = 'oauth') and ("mcp_servers"."oauth_client_secret_sealed" is null or "mcp_servers"."oauth_client_id" is not null));--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_auth_check" CHECK ("mcp_servers"."auth_kind" in ('none', 'header', 'oauth'));