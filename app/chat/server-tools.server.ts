import type { ToolSet } from "ai";
import type { Db } from "~/db/client.server";
import { mcpServersForRole, mcpToolSwitchId, type McpServer } from "~/data/mcp-servers.server";
import { logBackendFault } from "~/deadline.server";
import { mcpTools } from "~/mcp/ai-tools.server";
import { McpToolNames } from "~/mcp/tool-names.server";
import { serverSession } from "~/tools/server-connection.server";

/**
 * The MCP tools one reply may offer its model (docs/decisions/090): only the
 * servers and tools the user's role may use, less those the user switched
 * off. A server that cannot be reached leaves its tools out of this reply;
 * the reply goes on with the rest.
 */
export async function serverToolsFor(
  db: Db,
  who: { roleKey: string; switchedOff: readonly string[]; reserved: Iterable<string> },
): Promise<ToolSet> {
  const off = new Set(who.switchedOff);
  const servers = (await mcpServersForRole(db, who.roleKey))
    .map((server) => ({
      ...server,
      tools: server.tools.filter((tool) => !off.has(mcpToolSwitchId(server.id, tool.name))),
    }))
    .filter((server) => server.tools.length > 0);
  const names = new McpToolNames(who.reserved);
  const sets = await Promise.all(servers.map((server) => toolsOf(server, names)));
  return Object.assign({}, ...sets) as ToolSet;
}

async function toolsOf(server: McpServer, names: McpToolNames): Promise<ToolSet> {
  try {
    const session = await serverSession(server);
    const allowed = new Set(server.tools.map((tool) => tool.name));
    // The server's own list now (its schemas may have changed), but never a tool the role may not use.
    const infos = (await session.listTools()).filter((info) => allowed.has(info.name));
    return mcpTools(session, infos, { namePrefix: serverSlug(server.name), names, serverName: server.name });
  } catch (error) {
    logBackendFault("mcp", `connecting to the tool server ${server.name}`, error);
    return {};
  }
}

/** A function-name-safe word for the server, read by the model as the tools' family name. */
export function serverSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 24);
  return slug || "server";
}
