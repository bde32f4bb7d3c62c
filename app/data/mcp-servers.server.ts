import { and, count, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { mcpServers, type ListedMcpTool, type McpServerRow } from "~/db/schema";
import { ADMIN_KEY, OTHER_ROLES_KEY } from "~/settings/role-settings";
import { openSecret, sealSecret } from "./sealed-secrets.server";
import { defaultPolicy, effectivePolicy, isApprovalPolicy, type ApprovalPolicy } from "~/conversation/tool-approval";

/**
 * The MCP servers admins connect on the Tools area and who may use them
 * (docs/decisions/090): a server is open to the roles it lists ("*": every
 * role), and each of its tools may be narrowed to some of those roles. What
 * a role may not use is never offered to its model. A user of a role in
 * MCP_OWN_SERVER_ROLES may also add their own servers (docs/decisions/094):
 * those have an owner and no roles, and only their owner sees and uses them.
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

/** How many servers of their own one user may have. */
export const MAX_OWN_SERVERS = 10;
export const OWN_SERVERS_FULL = `You have ${MAX_OWN_SERVERS} servers of your own, the most allowed: remove one to add another.`;

/** Whether this role's users may add their own servers; admins add shared ones instead. */
export function mayAddOwnServers(roleKey: string): boolean {
  return roleKey !== ADMIN_KEY && rolesAllow(getConfig().ownServerRoles, roleKey);
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

/** The shared servers (admins'), whoever may use them. */
export async function listMcpServers(db: Db): Promise<McpServer[]> {
  return db
    .select()
    .from(mcpServers)
    .where(isNull(mcpServers.ownerUid))
    .orderBy(sql`lower(${mcpServers.name})`);
}

/** One user's own servers, with all their tools. */
export async function listOwnMcpServers(db: Db, uid: string): Promise<McpServer[]> {
  return db
    .select()
    .from(mcpServers)
    .where(eq(mcpServers.ownerUid, uid))
    .orderBy(sql`lower(${mcpServers.name})`);
}

/** Every user's own servers, for the admins to see and remove (by owner, then name). */
export async function listAllOwnMcpServers(db: Db): Promise<McpServer[]> {
  return db
    .select()
    .from(mcpServers)
    .where(isNotNull(mcpServers.ownerUid))
    .orderBy(mcpServers.addedBy, sql`lower(${mcpServers.name})`);
}

export async function findMcpServer(db: Db, id: string): Promise<McpServer | undefined> {
  const [row] = await db.select().from(mcpServers).where(eq(mcpServers.id, id));
  return row;
}

/** The shared servers a role may use, each with only the tools it may use. */
export async function mcpServersForRole(db: Db, roleKey: string): Promise<McpServer[]> {
  const rows = await listMcpServers(db);
  return rows
    .filter((server) => rolesAllow(server.roles, roleKey))
    .map((server) => ({ ...server, tools: toolsForRole(server, roleKey) }));
}

export interface ServerUser {
  uid: string;
  roleKey: string;
}

/**
 * Every server this user may use: the shared ones their role may use, then
 * their own (all of its tools: no role narrows a server only they use) while
 * their role may have them.
 */
export async function mcpServersFor(db: Db, who: ServerUser): Promise<McpServer[]> {
  const shared = await mcpServersForRole(db, who.roleKey);
  return mayAddOwnServers(who.roleKey) ? [...shared, ...(await listOwnMcpServers(db, who.uid))] : shared;
}

/** One server as this user may use it (tools narrowed as `mcpServersFor`); undefined for anyone else's own server. */
export async function findUsableMcpServer(db: Db, id: string, who: ServerUser): Promise<McpServer | undefined> {
  const server = await findMcpServer(db, id);
  if (!server) return undefined;
  if (server.ownerUid !== null) {
    return server.ownerUid === who.uid && mayAddOwnServers(who.roleKey) ? server : undefined;
  }
  return rolesAllow(server.roles, who.roleKey) ? { ...server, tools: toolsForRole(server, who.roleKey) } : undefined;
}

/** One of this user's own servers; undefined for a shared one or anyone else's. */
export async function findOwnMcpServer(db: Db, id: string, uid: string): Promise<McpServer | undefined> {
  const [row] = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.id, id), eq(mcpServers.ownerUid, uid)));
  return row;
}

/** Adds a server (shared, or `ownerUid`'s own); undefined when its name is taken. */
export async function addMcpServer(
  db: Pick<Db, "insert">,
  input: NewMcpServer,
  addedBy: string,
  ownerUid: string | null = null,
): Promise<McpServer | undefined> {
  const id = crypto.randomUUID();
  const [row] = await db
    .insert(mcpServers)
    .values({
      id,
      name: input.name,
      url: input.url,
      roles: input.roles,
      addedBy,
      ownerUid,
      ...(input.header ? sealedHeader(id, input.header) : {}),
      ...(input.oauth ? oauthColumns(id, input.oauth) : {}),
    })
    .onConflictDoNothing()
    .returning();
  return row;
}

/**
 * Adds a server of the user's own (no roles: only its owner uses it). The
 * count and the insert are one transaction under a lock per user, so two
 * adds at once cannot pass the cap together.
 */
export async function addOwnMcpServer(
  db: Db,
  input: Omit<NewMcpServer, "roles">,
  owner: { uid: string; addedBy: string },
): Promise<McpServer | "taken" | "full"> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`mcp-own-servers:${owner.uid}`}))`);
    const [{ owned }] = await tx.select({ owned: count() }).from(mcpServers).where(eq(mcpServers.ownerUid, owner.uid));
    if (owned >= MAX_OWN_SERVERS) return "full";
    const added = await addMcpServer(tx, { ...input, roles: [] }, owner.addedBy, owner.uid);
    return added ?? "taken";
  });
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

/** Roles and admins' policies are for shared servers: an own server has neither (its owner alone uses it). */
function sharedServer(id: string) {
  return and(eq(mcpServers.id, id), isNull(mcpServers.ownerUid));
}

export async function setMcpServerRoles(db: Db, id: string, roles: string[]): Promise<boolean> {
  const rows = await db
    .update(mcpServers)
    .set({ roles, updatedAt: sql`now()` })
    .where(sharedServer(id))
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
    .where(sharedServer(id))
    .returning({ id: mcpServers.id });
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
    .where(sharedServer(id))
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
