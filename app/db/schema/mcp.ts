import { sql } from "drizzle-orm";
import {
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

/**
 * MCP servers on the Tools area. A shared server (`owner_uid` null) is one an
 * admin connected (docs/decisions/090): like prompt tools it belongs to the
 * product, not to a user, and the admin who added it is kept by email for the
 * record only. An own server (`owner_uid` set, docs/decisions/094) belongs to
 * the user who added it: only they see and use it, and it goes with their
 * account.
 */

export const MCP_AUTH_KINDS = ["none", "header", "oauth"] as const;
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
    /** OAuth (docs/decisions/092): a client the admin registered at the authorization server; unset: dynamic registration. */
    oauthClientId: text("oauth_client_id"),
    oauthClientSecretSealed: text("oauth_client_secret_sealed"),
    /** Role keys that may use the server ("*": every role). */
    roles: text("roles")
      .array()
      .notNull()
      .default(sql`'{*}'::text[]`),
    /** Per tool, the roles it is narrowed to (a subset of the server's); a tool not listed follows the server. */
    toolRoles: jsonb("tool_roles").$type<Record<string, string[]>>().notNull().default({}),
    /** Per tool, the loosest approval a user may choose (app/conversation/tool-approval.ts); unset: from its hints. */
    toolPolicies: jsonb("tool_policies").$type<Record<string, string>>().notNull().default({}),
    tools: jsonb("tools").$type<ListedMcpTool[]>().notNull().default([]),
    listedAt: timestamp("listed_at", { withTimezone: true }),
    /** Why the last listing failed, in words for the admin; null once it worked. */
    lastError: text("last_error"),
    addedBy: text("added_by").notNull(),
    /** The user whose own server this is (docs/decisions/094); null: shared, open to the roles above. */
    ownerUid: text("owner_uid"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Unique among the shared servers, and among each user's own: one user's names tell nothing of another's.
    uniqueIndex("mcp_servers_name_idx").on(sql`coalesce(${t.ownerUid}, '')`, sql`lower(${t.name})`),
    index("mcp_servers_owner_idx").on(t.ownerUid),
    check("mcp_servers_auth_check", sql`${t.authKind} in ('none', 'header', 'oauth')`),
    check(
      "mcp_servers_header_check",
      sql`(${t.authKind} = 'header') = (${t.headerName} is not null and ${t.headerValueSealed} is not null)`,
    ),
    check(
      "mcp_servers_oauth_client_check",
      sql`(${t.oauthClientId} is null or ${t.authKind} = 'oauth') and (${t.oauthClientSecretSealed} is null or ${t.oauthClientId} is not null)`,
    ),
  ],
);

export type McpServerRow = typeof mcpServers.$inferSelect;

/**
 * The client the app registered itself as (RFC 7591) at an OAuth server's
 * authorization server, when the admin configured none (docs/decisions/092).
 * One per server; its secret, if the authorization server gave one, is sealed.
 */
export const mcpOauthClients = pgTable("mcp_oauth_clients", {
  serverId: uuid("server_id")
    .primaryKey()
    .references(() => mcpServers.id, { onDelete: "cascade" }),
  /** The authorization server it was registered at. */
  issuer: text("issuer").notNull(),
  /** The redirect URI it was registered with: another one (APP_URL changed) registers again. */
  redirectUri: text("redirect_uri").notNull(),
  clientId: text("client_id").notNull(),
  clientSecretSealed: text("client_secret_sealed"),
  /** The rest of the registration answer (no secret in it). */
  registration: jsonb("registration").$type<Record<string, unknown>>().notNull().default({}),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Where discovery found a server's authorization server (RFC 9728, RFC 8414): no secret in it. */
export type McpOauthDiscovery = Record<string, unknown> & { authorizationServerUrl: string };

/**
 * A user's tokens for an OAuth server (docs/decisions/092), sealed at rest,
 * bound to their row. `reconnectAt` is set once the authorization server
 * refused them (a revoked grant, an expired refresh token): the server's
 * tools are left out of the user's replies until they connect again.
 */
export const mcpOauthTokens = pgTable(
  "mcp_oauth_tokens",
  {
    uid: text("uid").notNull(),
    serverId: uuid("server_id")
      .notNull()
      .references(() => mcpServers.id, { onDelete: "cascade" }),
    accessTokenSealed: text("access_token_sealed"),
    refreshTokenSealed: text("refresh_token_sealed"),
    tokenType: text("token_type").notNull().default("Bearer"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    scope: text("scope"),
    /** The client the tokens were issued to (its id); refreshing and revoking present it. */
    clientId: text("client_id").notNull(),
    /** The authorization server the tokens came from: the SDK's discovery state, kept for refresh and revocation. */
    discovery: jsonb("discovery").$type<McpOauthDiscovery>(),
    reconnectAt: timestamp("reconnect_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.uid, t.serverId] }), index("mcp_oauth_tokens_server_idx").on(t.serverId)],
);

export type McpOauthTokenRow = typeof mcpOauthTokens.$inferSelect;

/**
 * A sign-in a user started and has not finished (docs/decisions/092): the
 * `state` sent to the authorization server, bound to the user, with the PKCE
 * verifier and the client used, both sealed. Taken once by the callback;
 * older than ten minutes it is refused and swept.
 */
export const mcpOauthPending = pgTable(
  "mcp_oauth_pending",
  {
    state: text("state").primaryKey(),
    uid: text("uid").notNull(),
    serverId: uuid("server_id")
      .notNull()
      .references(() => mcpServers.id, { onDelete: "cascade" }),
    codeVerifierSealed: text("code_verifier_sealed").notNull(),
    /** The client information the authorization was started with (JSON), sealed: it may hold a secret. */
    clientSealed: text("client_sealed").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    discovery: jsonb("discovery").$type<McpOauthDiscovery>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("mcp_oauth_pending_uid_idx").on(t.uid), index("mcp_oauth_pending_created_idx").on(t.createdAt)],
);

/**
 * Every call a reply made of a server's tool (docs/decisions/091): who asked,
 * which tool with which arguments, whether it was asked about and who
 * decided, and how it ended. Admins read it; it goes with the account.
 */
export const toolCalls = pgTable(
  "tool_calls",
  {
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    /** Who the reply was for, as admins read it. */
    email: text("email"),
    /** No foreign key: a new chat is stored only with its first exchange, after its tools ran. */
    conversationId: uuid("conversation_id").notNull(),
    runId: uuid("run_id").notNull(),
    /** The model's id for the call: the reply's tool step it belongs to. */
    toolCallId: text("tool_call_id").notNull(),
    serverId: uuid("server_id"),
    serverName: text("server_name").notNull(),
    tool: text("tool").notNull(),
    title: text("title").notNull(),
    arguments: jsonb("arguments").notNull(),
    /** The approval policy the call met: ask, once, auto. */
    policy: text("policy").notNull(),
    /** pending → approved | denied | expired | cancelled; or auto (no one was asked) or allowed (the chat allowed it). */
    status: text("status").notNull(),
    decidedBy: text("decided_by"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    /** How the call ended once run: ok, error, timeout, cancelled, protocol, transport. */
    outcome: text("outcome"),
    durationMs: integer("duration_ms"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("tool_calls_created_idx").on(t.createdAt), index("tool_calls_uid_idx").on(t.uid)],
);

export type ToolCallRow = typeof toolCalls.$inferSelect;

/** A server's tool allowed for the rest of one chat ("Allow for this chat"). */
export const chatToolAllowances = pgTable(
  "chat_tool_allowances",
  {
    conversationId: uuid("conversation_id").notNull(),
    uid: text("uid").notNull(),
    /** app/data/mcp-servers.server.ts mcpToolSwitchId. */
    switchId: text("switch_id").notNull(),
    grantedBy: text("granted_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.switchId] }), index("chat_tool_allowances_uid_idx").on(t.uid)],
);

/**
 * A server's request for input from the user while its tool runs (MCP
 * elicitation, docs/decisions/095): the form the reply shows, and the answer
 * the chat's owner gave from any tab or device, which the waiting call reads
 * and sends to the server. Goes with the account.
 */
export const toolElicitations = pgTable(
  "tool_elicitations",
  {
    id: uuid("id").primaryKey(),
    uid: text("uid").notNull(),
    conversationId: uuid("conversation_id").notNull(),
    runId: uuid("run_id").notNull(),
    /** The model's id for the call: the reply's tool step it belongs to. */
    toolCallId: text("tool_call_id").notNull(),
    serverName: text("server_name").notNull(),
    message: text("message").notNull(),
    /** The form as shown (app/conversation/tool-elicitation.ts ElicitationField[]): an answer is checked against it. */
    fields: jsonb("fields").notNull(),
    /** pending → accepted | declined | expired | cancelled. */
    status: text("status").notNull(),
    /** The accepted answer, until the call has sent it; then cleared. */
    content: jsonb("content"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("tool_elicitations_uid_idx").on(t.uid)],
);
