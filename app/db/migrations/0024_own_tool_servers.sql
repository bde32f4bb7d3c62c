DROP INDEX "mcp_servers_name_idx";--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "owner_uid" text;--> statement-breakpoint
CREATE INDEX "mcp_servers_owner_idx" ON "mcp_servers" USING btree ("owner_uid");--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_servers_name_idx" ON "mcp_servers" USING btree (coalesce("owner_uid", ''),lower("name"));