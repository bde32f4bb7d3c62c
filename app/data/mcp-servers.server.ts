import { eq, sql } from "drizzle-orm";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { mcpServers, type ListedMcpTool, type McpServerRow } from "~/db/schema";
import { OTHER_ROLES_KEY } from "~/settings/role-settings";
import { openSecret, sealSecret } from "./sealed-secrets.server";
import { defaultPolicy, effectivePolicy, isApprovalPolicy, type ApprovalPolicy } from "~/conversation/tool-approval";

/**
 * The MCP servers admins connect on the Tools area and who may use them
 * (docs/decisions/090): a server is open to the roles it lists ("*": every
 * role), and each of its tools may be narrowed to some of those roles. What
 * a role may not use is never offered to its model.
 */

export type McpServer = McpServerRow;

export interface NewMcpServer {
  name: string;
  url: string;
  header?: { name: string; value: string };
  /** Each user signs in (docs/decisions/092), with the admin's client or one registered dynamically. */
  oauth?: { clientId?: string; clientSecret?: string };
  roles: string[];
}

export class McpSecretKeyMissing extends Error {
  constructor() {
    super(
      "A server with a secret header or per-user sign-in needs TOOLS_SECRET_KEY set on the server (32 random bytes in base64).",
    );
  }
}

/** The id a user's on/off switch for a server's tool is stored under (user_tool_settings). */
export function mcpToolSwitchId(serverId: string, toolName: string): string {
  return `mcp:${serverId}/${toolName}`;
}

export function isMcpToolSwitchId(id: string): boolean {
  return id.startsWith("mcp:");
}

export function rolesAllow(roles: readonly string[], roleKey: string): boolean {
  return roles.includes(OTHER_ROLES_KEY) || roles.includes(roleKey);
}

/** The tools of a server this role may use: the server's roles, narrowed per tool. */
export function toolsForRole(server: McpServer, roleKey: string): ListedMcpTool[] {
  if (!rolesAllow(server.roles, roleKey)) return [];
  return server.tools.filter((tool) => {
    const narrowed = server.toolRoles[tool.name];
    return !narrowed || rolesAllow(narrowed, roleKey);
  });
}

export async function listMcpServers(db: Db): Promise<McpServer[]> {
  return db
    .select()
    .from(mcpServers)
    .orderBy(sql`lower(${mcpServers.name})`);
}

export async function findMcpServer(db: Db, id: string): Promise<McpServer | undefined> {
  const [row] = await db.select().from(mcpServers).where(eq(mcpServers.id, id));
  return row;
}

/** The servers a role may use, each with only the tools it may use. */
export async function mcpServersForRole(db: Db, roleKey: string): Promise<McpServer[]> {
  const rows = await listMcpServers(db);
  return rows
    .filter((server) => rolesAllow(server.roles, roleKey))
    .map((server) => ({ ...server, tools: toolsForRole(server, roleKey) }));
}

/** Adds a server; undefined when its name is taken. */
export async function addMcpServer(db: Db, input: NewMcpServer, addedBy: string): Promise<McpServer | undefined> {
  const id = crypto.randomUUID();
  const [row] = await db
    .insert(mcpServers)
    .values({
      id,
      name: input.name,
      url: input.url,
      roles: input.roles,
      addedBy,
      ...(input.header ? sealedHeader(id, input.header) : {}),
      ...(input.oauth ? oauthColumns(id, input.oauth) : {}),
    })
    .onConflictDoNothing()
    .returning();
  return row;
}

function sealedHeader(id: string, header: { name: string; value: string }) {
  const key = getConfig().toolsSecretKey;
  if (!key) throw new McpSecretKeyMissing();
  return {
    authKind: "header" as const,
    headerName: header.name,
    headerValueSealed: sealSecret(key, header.value, secretContext(id)),
  };
}

function oauthColumns(id: string, oauth: { clientId?: string; clientSecret?: string }) {
  const key = getConfig().toolsSecretKey;
  if (!key) throw new McpSecretKeyMissing();
  return {
    authKind: "oauth" as const,
    oauthClientId: oauth.clientId ?? null,
    oauthClientSecretSealed:
      oauth.clientId && oauth.clientSecret ? sealSecret(key, oauth.clientSecret, oauthSecretContext(id)) : null,
  };
}

function oauthSecretContext(serverId: string): string {
  return `mcp-server-oauth-client:${serverId}`;
}

/** The OAuth client the admin configured for the server, its secret opened; undefined: register dynamically. */
export function configuredOauthClient(server: McpServer): { client_id: string; client_secret?: string } | undefined {
  if (server.authKind !== "oauth" || !server.oauthClientId) return undefined;
  if (!server.oauthClientSecretSealed) return { client_id: server.oauthClientId };
  const key = getConfig().toolsSecretKey;
  if (!key) throw new McpSecretKeyMissing();
  return {
    client_id: server.oauthClientId,
    client_secret: openSecret(key, server.oauthClientSecretSealed, oauthSecretContext(server.id)),
  };
}

function secretContext(serverId: string): string {
  return `mcp-server:${serverId}`;
}

/** The headers a request to the server carries (its secret opened); throws when the key cannot open it. */
export function mcpServerHeaders(server: McpServer): Record<string, string> {
  if (server.authKind !== "header" || !server.headerName || !server.headerValueSealed) return {};
  const key = getConfig().toolsSecretKey;
  if (!key) throw new McpSecretKeyMissing();
  return { [server.headerName]: openSecret(key, server.headerValueSealed, secretContext(server.id)) };
}

/** What the server listed, or why listing failed (the last good list is kept for the admin to see). */
export async function recordMcpListing(
  db: Db,
  id: string,
  listing: { tools: ListedMcpTool[] } | { error: string },
): Promise<void> {
  const set =
    "tools" in listing ? { tools: listing.tools, lastError: null, listedAt: sql`now()` } : { lastError: listing.error };
  await db
    .update(mcpServers)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(mcpServers.id, id));
}

export async function setMcpServerRoles(db: Db, id: string, roles: string[]): Promise<boolean> {
  const rows = await db
    .update(mcpServers)
    .set({ roles, updatedAt: sql`now()` })
    .where(eq(mcpServers.id, id))
    .returning({ id: mcpServers.id });
  return rows.length > 0;
}

/** Narrows one tool to some roles; null: it follows the server's roles again. */
export async function setMcpToolRoles(db: Db, id: string, toolName: string, roles: string[] | null): Promise<boolean> {
  const change =
    roles === null
      ? sql`${mcpServers.toolRoles} - ${toolName}::text`
      : sql`${mcpServers.toolRoles} || jsonb_build_object(${toolName}::text, ${JSON.stringify(roles)}::jsonb)`;
  const rows = await db
    .update(mcpServers)
    .set({ toolRoles: change, updatedAt: sql`now()` })
    .where(eq(mcpServers.id, id))
    .returning({ id: mcpServers.id });
  return rows.length > 0;
}

export async function deleteMcpServer(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(mcpServers).where(eq(mcpServers.id, id)).returning({ id: mcpServers.id });
  return rows.length > 0;
}

/** An admin's loosest approval for one tool; null: from the tool's own hints again. */
export async function setMcpToolPolicy(
  db: Db,
  id: string,
  toolName: string,
  policy: ApprovalPolicy | null,
): Promise<boolean> {
  const change =
    policy === null
      ? sql`${mcpServers.toolPolicies} - ${toolName}::text`
      : sql`${mcpServers.toolPolicies} || jsonb_build_object(${toolName}::text, ${policy}::text)`;
  const rows = await db
    .update(mcpServers)
    .set({ toolPolicies: change, updatedAt: sql`now()` })
    .where(eq(mcpServers.id, id))
    .returning({ id: mcpServers.id });
  return rows.length > 0;
}

/** The approval an admin allows at most for a tool: theirs, else from the tool's hints. */
export function adminPolicyFor(server: McpServer, tool: ListedMcpTool): ApprovalPolicy {
  const set = server.toolPolicies[tool.name];
  return isApprovalPolicy(set) ? set : defaultPolicy(tool);
}

/** The approval each tool of a server asks for: the admin's maximum, tightened by the user's own choice. */
export function policyFor(
  server: McpServer,
  tool: ListedMcpTool,
  choices: ReadonlyMap<string, string>,
): ApprovalPolicy {
  const maximum = adminPolicyFor(server, tool);
  const choice = choices.get(mcpToolSwitchId(server.id, tool.name));
  return effectivePolicy(maximum, isApprovalPolicy(choice) ? choice : null);
}
