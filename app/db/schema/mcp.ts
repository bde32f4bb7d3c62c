import { sql } from "drizzle-orm";
import { check, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * MCP servers an admin connected on the Tools area (docs/decisions/090). Like
 * prompt tools they belong to the product, not to a user: the admin who added
 * one is kept by email for the record only.
 */

export const MCP_AUTH_KINDS = ["none", "header"] as const;
export type McpAuthKind = (typeof MCP_AUTH_KINDS)[number];

/** A tool as the server last listed it: what the Tools area shows and the model is offered. */
export interface ListedMcpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly?: boolean;
  destructive?: boolean;
}

export const mcpServers = pgTable(
  "mcp_servers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    url: text("url").notNull(),
    authKind: text("auth_kind").$type<McpAuthKind>().notNull().default("none"),
    /** The header an admin set (e.g. Authorization); its value is sealed (app/data/sealed-secrets.server.ts). */
    headerName: text("header_name"),
    headerValueSealed: text("header_value_sealed"),
    /** Role keys that may use the server ("*": every role). */
    roles: text("roles")
      .array()
      .notNull()
      .default(sql`'{*}'::text[]`),
    /** Per tool, the roles it is narrowed to (a subset of the server's); a tool not listed follows the server. */
    toolRoles: jsonb("tool_roles").$type<Record<string, string[]>>().notNull().default({}),
    tools: jsonb("tools").$type<ListedMcpTool[]>().notNull().default([]),
    listedAt: timestamp("listed_at", { withTimezone: true }),
    /** Why the last listing failed, in words for the admin; null once it worked. */
    lastError: text("last_error"),
    addedBy: text("added_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("mcp_servers_name_idx").on(sql`lower(${t.name})`),
    check("mcp_servers_auth_check", sql`${t.authKind} in ('none', 'header')`),
    check(
      "mcp_servers_header_check",
      sql`(${t.authKind} = 'header') = (${t.headerName} is not null and ${t.headerValueSealed} is not null)`,
    ),
  ],
);

export type McpServerRow = typeof mcpServers.$inferSelect;
