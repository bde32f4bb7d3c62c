import { json } from "@remix-run/node";
import { getConfig } from "~/config.server";
import type { z } from "zod";
import { requireAdmin, requireUser, type SignedIn } from "~/auth/session.server";
import {
  addMcpServer,
  adminPolicyFor,
  policyFor,
  setMcpToolPolicy,
  deleteMcpServer,
  findMcpServer,
  listMcpServers,
  McpSecretKeyMissing,
  mcpServersForRole,
  mcpToolSwitchId,
  recordMcpListing,
  setMcpServerRoles,
  setMcpToolRoles,
  toolsForRole,
  type McpServer,
} from "~/data/mcp-servers.server";
import {
  addServerSchema,
  mcpSwitchSchema,
  serverIdSchema,
  serverRolesSchema,
  toolPolicySchema,
  toolRolesSchema,
  userApprovalSchema,
} from "~/data/mcp-server-forms.server";
import { effectivePolicy, POLICY_LABELS } from "~/conversation/tool-approval";
import { getSwitchedOffToolIds, getToolApprovals, saveToolApproval, saveToolSwitch } from "~/data/preferences.server";
import { toolStore } from "~/data/prompt-tools/prompt-tool-responses.server";
import { fieldErrors, readBody } from "~/http/forms.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { roleKey } from "~/settings/role-settings";
import type { ServerView, ToolCallView } from "~/data/mcp-server-view";
import { recentToolCalls } from "~/data/tool-calls.server";
import type { ToolCallRow } from "~/db/schema";
import { listServerTools } from "./server-connection.server";
import { callbackUrl, connectionStates, type McpConnectionState } from "~/data/mcp-oauth.server";
import { isSignInIntent, signInAction, signInNotice } from "./server-oauth.server";

/**
 * /tools/servers (docs/decisions/090): the MCP servers a user's role may
 * use, with a switch per tool; admins add servers and choose who may use
 * each server and tool.
 */

const NO_STORE = { "Cache-Control": "no-store" };
const STORE_DOWN = "The tool servers can't be reached right now. Please try again shortly.";

export async function serversPage(request: Request) {
  const session = await requireUser(request);
  const role = roleKey(session);
  try {
    const { servers, off, approvals, signedIn, calls } = await toolStore(async (db) => ({
      servers: session.isAdmin ? await listMcpServers(db) : await mcpServersForRole(db, role),
      off: await getSwitchedOffToolIds(db, session.user.uid),
      approvals: await getToolApprovals(db, session.user.uid),
      signedIn: await connectionStates(db, session.user.uid),
      calls: session.isAdmin ? await recentToolCalls(db, RECENT_CALLS) : [],
    }));
    const signIn = signInNotice(new URL(request.url), (id) => servers.find((server) => server.id === id)?.name);
    return json(
      {
        isAdmin: session.isAdmin,
        servers: servers.map((server) => viewOf(server, { off, approvals, signedIn }, session.isAdmin)),
        calls: calls.map(callView),
        storeDown: false,
        // What an admin registers at an authorization server for a server each user signs in to.
        ...(session.isAdmin ? { redirectUri: callbackUrl(getConfig().appOrigin ?? new URL(request.url).origin) } : {}),
        ...signIn,
      },
      { headers: NO_STORE },
    );
  } catch {
    return json(
      { isAdmin: session.isAdmin, servers: [] as ServerView[], calls: [] as ToolCallView[], storeDown: true },
      { headers: NO_STORE },
    );
  }
}

/** How many of the latest calls the admins' record shows. */
const RECENT_CALLS = 50;
const ARGUMENTS_SHOWN = 200;

function callView(row: ToolCallRow): ToolCallView {
  const args = JSON.stringify(row.arguments ?? {});
  return {
    id: row.id,
    at: row.createdAt.toISOString(),
    who: row.email ?? row.uid,
    server: row.serverName,
    tool: row.title,
    arguments: args.length > ARGUMENTS_SHOWN ? `${args.slice(0, ARGUMENTS_SHOWN - 1)}…` : args,
    status: row.status,
    decidedBy: row.decidedBy,
    outcome: row.outcome,
    durationMs: row.durationMs,
  };
}

interface UserChoices {
  off: Set<string>;
  approvals: ReadonlyMap<string, string>;
  /** Per server each user signs in to, this user's state with it (docs/decisions/092). */
  signedIn: ReadonlyMap<string, McpConnectionState>;
}

function viewOf(server: McpServer, { off, approvals, signedIn }: UserChoices, isAdmin: boolean): ServerView {
  const view: ServerView = {
    id: server.id,
    name: server.name,
    url: server.url,
    ...(server.authKind === "oauth" ? { connection: signedIn.get(server.id) ?? "connect" } : {}),
    tools: server.tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      readOnly: tool.readOnly,
      destructive: tool.destructive,
      enabled: !off.has(mcpToolSwitchId(server.id, tool.name)),
      approval: policyFor(server, tool, approvals),
      adminApproval: adminPolicyFor(server, tool),
      ...(isAdmin ? { roles: server.toolRoles[tool.name] ?? null } : {}),
    })),
  };
  if (!isAdmin) return view;
  return {
    ...view,
    auth: server.authKind === "header" ? (server.headerName ?? "none") : server.authKind,
    roles: server.roles,
    lastError: server.lastError,
    listedAt: server.listedAt?.toISOString() ?? null,
  };
}

type Answer = {
  ok?: boolean;
  notice?: string;
  error?: string;
  errors?: Record<string, string>;
  values?: Record<string, string>;
  confirmDelete?: string;
};

function answer(body: Answer, status = 200) {
  return json(body, { status, headers: NO_STORE });
}

export async function serversAction(request: Request) {
  const body = await readBody(request, BODY_LIMITS.small);
  if ("refusal" in body) return body.refusal;
  if (body.fields.intent === "set-mcp-tool") return switchTool(await requireUser(request), body.fields);
  if (body.fields.intent === "set-mcp-approval") return chooseApproval(await requireUser(request), body.fields);
  if (isSignInIntent(body.fields.intent)) return signInAction(request, body.fields);
  // Every other intent changes what everyone is offered: admins only, checked freshly.
  const admin = await requireAdmin(request);
  try {
    switch (body.fields.intent) {
      case "add-server":
        return await addServer(admin, body.fields);
      case "set-roles":
        return await setRoles(body.fields);
      case "set-tool-roles":
        return await setToolRoles(body.fields);
      case "set-tool-policy":
        return await setToolPolicy(body.fields);
      case "refresh":
      case "delete-server":
        return await changeServer(admin, body.fields);
      default:
        return answer({ error: "Unknown action." }, 400);
    }
  } catch {
    return answer({ error: STORE_DOWN }, 503);
  }
}

async function switchTool(session: SignedIn, fields: Record<string, unknown>) {
  const parsed = mcpSwitchSchema.safeParse(fields);
  if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
  const { serverId, tool, enabled } = parsed.data;
  try {
    return await toolStore(async (db) => {
      const server = await findMcpServer(db, serverId);
      const usable = server && toolsForRole(server, roleKey(session)).some((listed) => listed.name === tool);
      if (!server || !usable) return answer({ error: "That tool is not available to you." }, 404);
      await saveToolSwitch(db, session.user.uid, mcpToolSwitchId(serverId, tool), enabled === "on");
      return answer({ ok: true, notice: `${tool} is ${enabled} for your chats.` });
    });
  } catch {
    return answer({ error: "Your choice could not be saved right now. Please try again shortly." }, 503);
  }
}

async function chooseApproval(session: SignedIn, fields: Record<string, unknown>) {
  const parsed = userApprovalSchema.safeParse(fields);
  if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
  const { serverId, tool, approval } = parsed.data;
  try {
    return await toolStore(async (db) => {
      const server = await findMcpServer(db, serverId);
      const listed = server && toolsForRole(server, roleKey(session)).find((candidate) => candidate.name === tool);
      if (!server || !listed) return answer({ error: "That tool is not available to you." }, 404);
      const maximum = adminPolicyFor(server, listed);
      const choice = approval === "default" ? null : approval;
      if (choice && effectivePolicy(maximum, choice) !== choice) {
        return answer({ error: `Your admin allows at most “${POLICY_LABELS[maximum]}” for ${tool}.` }, 400);
      }
      await saveToolApproval(db, session.user.uid, mcpToolSwitchId(serverId, tool), choice === maximum ? null : choice);
      return answer({ ok: true, notice: `${tool}: ${POLICY_LABELS[choice ?? maximum]}.` });
    });
  } catch {
    return answer({ error: "Your choice could not be saved right now. Please try again shortly." }, 503);
  }
}

async function setToolPolicy(fields: Record<string, unknown>) {
  const parsed = toolPolicySchema.safeParse(fields);
  if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
  const { serverId, tool, policy } = parsed.data;
  const found = await toolStore((db) => setMcpToolPolicy(db, serverId, tool, policy === "default" ? null : policy));
  if (!found) return gone();
  return answer({
    ok: true,
    notice:
      policy === "default" ? `${tool} asks as its hints say again.` : `${tool}: at most “${POLICY_LABELS[policy]}”.`,
  });
}

/** The form's own values, to fill it again after a refusal (never the header's secret). */
function valuesOf(fields: Record<string, unknown>): Record<string, string> {
  const text = (name: string) => (typeof fields[name] === "string" ? (fields[name] as string) : "");
  const roles = Array.isArray(fields.roles) ? fields.roles.join(",") : text("roles");
  return {
    name: text("name"),
    url: text("url"),
    auth: text("auth"),
    headerName: text("headerName"),
    oauthClientId: text("oauthClientId"),
    roles,
  };
}

function refused(error: z.ZodError, fields: Record<string, unknown>) {
  return answer({ errors: fieldErrors(error), values: valuesOf(fields) }, 400);
}

async function addServer(admin: SignedIn, fields: Record<string, unknown>) {
  const parsed = addServerSchema.safeParse(fields);
  if (!parsed.success) return refused(parsed.error, fields);
  if ((parsed.data.header || parsed.data.oauth) && !getConfig().toolsSecretKey) {
    const field = parsed.data.header ? "headerValue" : "auth";
    return answer({ errors: { [field]: new McpSecretKeyMissing().message }, values: valuesOf(fields) }, 400);
  }
  const added = await toolStore((db) => addMcpServer(db, parsed.data, admin.user.email ?? admin.user.uid));
  if (!added) {
    return answer({ errors: { name: "A server with this name already exists." }, values: valuesOf(fields) }, 400);
  }
  if (added.authKind === "oauth") {
    // Its tools are listed with a user's sign-in: the admin's own, once they connect (docs/decisions/092).
    return answer({ ok: true, notice: `“${added.name}” was added. Connect to it to list its tools.` });
  }
  const listing = await listServerTools(added);
  await toolStore((db) => recordMcpListing(db, added.id, listing));
  if ("error" in listing) {
    return answer({ ok: true, notice: `“${added.name}” was added, but could not be reached: ${listing.error}` });
  }
  return answer({ ok: true, notice: `“${added.name}” was added with ${toolCount(listing.tools.length)}.` });
}

function toolCount(count: number): string {
  return count === 1 ? "1 tool" : `${count} tools`;
}

async function setRoles(fields: Record<string, unknown>) {
  const parsed = serverRolesSchema.safeParse(fields);
  if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
  const found = await toolStore((db) => setMcpServerRoles(db, parsed.data.serverId, parsed.data.roles));
  return found ? answer({ ok: true, notice: "Saved: who may use this server." }) : gone();
}

async function setToolRoles(fields: Record<string, unknown>) {
  const parsed = toolRolesSchema.safeParse(fields);
  if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
  const { serverId, tool, roles } = parsed.data;
  const found = await toolStore((db) => setMcpToolRoles(db, serverId, tool, roles));
  if (!found) return gone();
  return answer({ ok: true, notice: roles ? `Saved: who may use ${tool}.` : `${tool} follows the server again.` });
}

async function changeServer(admin: SignedIn, fields: Record<string, unknown>) {
  const parsed = serverIdSchema.safeParse(fields);
  if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
  const { intent, serverId, confirm } = parsed.data;
  const server = await toolStore((db) => findMcpServer(db, serverId));
  if (!server) return gone();
  if (intent === "delete-server") {
    if (confirm !== "yes") return answer({ confirmDelete: serverId });
    await toolStore((db) => deleteMcpServer(db, serverId));
    return answer({ ok: true, notice: `“${server.name}” was removed.` });
  }
  if (server.authKind === "oauth" && !(await isSignedIn(admin, serverId))) {
    return answer({ error: `Connect to “${server.name}” first: its tools are listed with your own sign-in.` });
  }
  const listing = await listServerTools(server, admin.user.uid);
  await toolStore((db) => recordMcpListing(db, serverId, listing));
  return "error" in listing
    ? answer({ error: `“${server.name}” could not be reached: ${listing.error}` })
    : answer({ ok: true, notice: `“${server.name}” lists ${toolCount(listing.tools.length)}.` });
}

async function isSignedIn(session: SignedIn, serverId: string): Promise<boolean> {
  const states = await toolStore((db) => connectionStates(db, session.user.uid));
  return states.get(serverId) === "connected";
}

function gone() {
  return answer({ error: "That server no longer exists." }, 404);
}
