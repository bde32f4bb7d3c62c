import { getConfig } from "~/config.server";
import { createOutboundFetch } from "~/net/outbound.server";
import { connectMcp, type McpSession, type McpToolInfo } from "~/mcp/client.server";
import type { ListedMcpTool } from "~/db/schema";
import { getDb } from "~/db/client.server";
import { mcpServerHeaders, type McpServer } from "~/data/mcp-servers.server";
import { userProvider } from "~/data/mcp-oauth.server";

/**
 * Connections to the admins' MCP servers (docs/decisions/090). A server's
 * sign-in is the same for everyone who may use it (no sign-in, or the
 * admin's header), so one connection per server serves every reply on this
 * instance; it is made again when the server's record changes, and closed
 * once unused for a while. A server each user signs in to (OAuth,
 * docs/decisions/092) has one connection per user, with that user's tokens.
 */

const CONNECT_TIMEOUT_MS = 10_000;
const IDLE_CLOSE_MS = 5 * 60_000;

interface Pooled {
  version: string;
  session: Promise<McpSession>;
  idle?: NodeJS.Timeout;
}

const pool = new Map<string, Pooled>();

function versionOf(server: McpServer): string {
  return `${server.url}|${server.updatedAt.toISOString()}`;
}

/**
 * Every request to a tool server goes through the outbound guard (docs/decisions/088): its
 * address is checked after DNS and after each redirect. A session's event stream may stay open
 * for as long as the connection is pooled, so the guard's deadline is the pool's idle time and
 * its byte cap is left to the MCP client, which bounds each answer (docs/decisions/089).
 */
export function serverFetch(): typeof fetch {
  return createOutboundFetch({
    allow: getConfig().outbound.allow,
    timeoutMs: IDLE_CLOSE_MS + CONNECT_TIMEOUT_MS,
    maxBytes: Number.POSITIVE_INFINITY,
  }) as typeof fetch;
}

/** Connects as everyone does, or as the user `uid` for a server each user signs in to (docs/decisions/092). */
export async function connectToServer(
  server: McpServer,
  timeoutMs = CONNECT_TIMEOUT_MS,
  uid?: string,
): Promise<McpSession> {
  const target = { url: server.url, label: server.name, fetch: serverFetch() };
  if (server.authKind !== "oauth") return connectMcp({ ...target, headers: mcpServerHeaders(server) }, { timeoutMs });
  if (!uid) throw new Error("a server each user signs in to is connected to as a user");
  return connectMcp({ ...target, authProvider: userProvider(await getDb(), uid, server) }, { timeoutMs });
}

function poolKey(server: McpServer, uid: string | undefined): string {
  return server.authKind === "oauth" ? `${server.id}/${uid}` : server.id;
}

/** This instance's connection to the server (for `uid`, when each user signs in), made (or made again) as needed. */
export function serverSession(server: McpServer, uid?: string): Promise<McpSession> {
  const version = versionOf(server);
  const key = poolKey(server, uid);
  let pooled = pool.get(key);
  if (pooled && pooled.version !== version) {
    closeLater(pooled.session);
    pooled = undefined;
  }
  if (!pooled) {
    const entry: Pooled = { version, session: connectToServer(server, CONNECT_TIMEOUT_MS, uid) };
    // A failed connection is not kept: the next reply tries again.
    entry.session.catch(() => pool.get(key) === entry && pool.delete(key));
    pooled = entry;
    pool.set(key, entry);
  }
  const entry = pooled;
  clearTimeout(entry.idle);
  entry.idle = setTimeout(() => {
    if (pool.get(key) !== entry) return;
    pool.delete(key);
    closeLater(entry.session);
  }, IDLE_CLOSE_MS);
  entry.idle.unref();
  return entry.session;
}

/** Drops this instance's connection to the server (for `uid`, when each user signs in): the next reply connects again. */
export function forgetServerSession(server: McpServer, uid?: string) {
  dropPooled(poolKey(server, uid));
}

function dropPooled(key: string) {
  const entry = pool.get(key);
  if (!entry) return;
  pool.delete(key);
  clearTimeout(entry.idle);
  closeLater(entry.session);
}

function closeLater(session: Promise<McpSession>) {
  void session.then((open) => open.close()).catch(() => undefined);
}

/** Closes this instance's connection of one user to one server (they disconnected or signed in again). */
export function closeUserSession(serverId: string, uid: string): void {
  dropPooled(`${serverId}/${uid}`);
}

/** Closes every pooled connection (shutdown, tests). */
export async function closeServerSessions(): Promise<void> {
  const entries = [...pool.values()];
  pool.clear();
  await Promise.all(
    entries.map(async (entry) => {
      clearTimeout(entry.idle);
      await entry.session.then((open) => open.close()).catch(() => undefined);
    }),
  );
}

/** What the Tools area keeps of a listed tool. */
export function toListedTool(info: McpToolInfo): ListedMcpTool {
  return {
    name: info.name,
    ...(info.title ? { title: info.title } : {}),
    description: info.description,
    inputSchema: info.inputSchema as Record<string, unknown>,
    ...(info.annotations?.readOnlyHint ? { readOnly: true } : {}),
    ...(info.annotations?.destructiveHint ? { destructive: true } : {}),
  };
}

/**
 * Connects afresh and lists the server's tools, for the admin who added it
 * or asked again (with their own sign-in, when each user signs in).
 */
export async function listServerTools(
  server: McpServer,
  uid?: string,
): Promise<{ tools: ListedMcpTool[] } | { error: string }> {
  let session: McpSession | undefined;
  try {
    session = await connectToServer(server, CONNECT_TIMEOUT_MS, uid);
    const tools = await session.listTools();
    return { tools: tools.map(toListedTool) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : "the server did not answer as an MCP server does." };
  } finally {
    await session?.close().catch(() => undefined);
  }
}
