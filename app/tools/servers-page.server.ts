import { json } from "@remix-run/node";
import { getConfig } from "~/config.server";
import type { z } from "zod";
import { requireAdmin, requireUser, type SignedIn } from "~/auth/session.server";
import {
  addMcpServer,
  addOwnMcpServer,
  adminPolicyFor,
  policyFor,
  setMcpToolPolicy,
  findMcpServer,
  findOwnMcpServer,
  findUsableMcpServer,
  listAllOwnMcpServers,
  listMcpServers,
  listOwnMcpServers,
  mayAddOwnServers,
  McpSecretKeyMissing,
  mcpServersForRole,
  mcpToolSwitchId,
  OWN_SERVERS_FULL,
  recordMcpListing,
  setMcpServerRoles,
  setMcpToolRoles,
  type McpServer,
} from "~/data/mcp-servers.server";
import type { Db } from "~/db/client.server";
import type { ListedMcpTool } from "~/db/schema";
import {
  addOwnServerSchema,
  addServerSchema,
  mcpSwitchSchema,
  serverIdSchema,
  serverRolesSchema,
  toolPolicySchema,
  toolRolesSchema,
  userApprovalSchema,
} from "~/data/mcp-server-forms.server";
import { effectivePolicy, POLICY_LABELS, type ApprovalPolicy } from "~/conversation/tool-approval";
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
import { isSignInIntent, removeServer, signInAction, signInNotice } from "./server-oauth.server";

/**
 * /tools/servers (docs/decisions/090): the MCP servers a user's role may
 * use, with a switch per tool; admins add servers and choose who may use
 * each server and tool. A user whose role may (MCP_OWN_SERVER_ROLES) adds
 * servers of their own with the same form, less the roles; admins see every
 * user's own servers, by owner, and may remove them (docs/decisions/094).
 */

const NO_STORE = { "Cache-Control": "no-store" };
const STORE_DOWN = "The tool servers can't be reached right now. Please try again shortly.";

export async function serversPage(request: Request) {
  const session = await requireUser(request);
  const role = roleKey(session);
  const uid = session.user.uid;
  const mayAddOwn = mayAddOwnServers(role);
  try {
    const { servers, own, others, off, approvals, signedIn, calls } = await toolStore(async (db) => ({
      servers: session.isAdmin ? await listMcpServers(db) : await mcpServersForRole(db, role),
      // Listed even once the role may no longer have them: their owner can still remove them.
      own: await listOwnMcpServers(db, uid),
      others: session.isAdmin ? await listAllOwnMcpServers(db) : [],
      off: await getSwitchedOffToolIds(db, uid),
      approvals: await getToolApprovals(db, uid),
      signedIn: await connectionStates(db, uid),
      calls: session.isAdmin ? await recentToolCalls(db, RECENT_CALLS) : [],
    }));
    const choices = { off, approvals, signedIn };
    const named = [...servers, ...own];
    const signIn = signInNotice(new URL(request.url), (id) => named.find((server) => server.id === id)?.name);
    return json(
      {
        isAdmin: session.isAdmin,
        mayAddOwn,
        servers: servers.map((server) => viewOf(server, choices, session.isAdmin ? "admin" : "user")),
        ownServers: own.map((server) => viewOf(server, choices, "owner")),
        usersServers: others.map(usersServerView),
        calls: calls.map(callView),
        storeDown: false,
        // What an admin (or a user adding their own) registers at an authorization server for a server each user signs in to.
        ...(session.isAdmin || mayAddOwn
          ? { redirectUri: callbackUrl(getConfig().appOrigin ?? new URL(request.url).origin) }
          : {}),
        ...signIn,
      },
      { headers: NO_STORE },
    );
  } catch {
    return json(
      {
        isAdmin: session.isAdmin,
        mayAddOwn,
        servers: [] as ServerView[],
        ownServers: [] as ServerView[],
        usersServers: [] as ServerView[],
        calls: [] as ToolCallView[],
        storeDown: true,
      },
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

/** Who reads the card: an admin (roles and policies), the server's owner (how it is signed in to), or a user. */
type Reader = "admin" | "owner" | "user";

function viewOf(server: McpServer, { off, approvals, signedIn }: UserChoices, reader: Reader): ServerView {
  const isAdmin = reader === "admin";
  const view: ServerView = {
    id: server.id,
    name: server.name,
    url: server.url,
    ...(server.authKind === "oauth" ? { connection: signedIn.get(server.id) ?? "connect" } : {}),
    tools: server.tools.map((tool) => ({
      ...toolViewOf(server, tool),
      enabled: !off.has(mcpToolSwitchId(server.id, tool.name)),
      approval: policyFor(server, tool, approvals),
      ...(isAdmin ? { roles: server.toolRoles[tool.name] ?? null } : {}),
    })),
  };
  if (reader === "user") return view;
  return { ...view, ...signingOf(server), ...(isAdmin ? { roles: server.roles } : {}) };
}

/** What every reader sees of a tool: what it is, its hints and the loosest approval it may have. */
function toolViewOf(server: McpServer, tool: ListedMcpTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    readOnly: tool.readOnly,
    destructive: tool.destructive,
    adminApproval: adminPolicyFor(server, tool),
  };
}

/** How requests are signed and how the last listing went: for admins and a server's owner, never a secret. */
function signingOf(server: McpServer) {
  return {
    auth: server.authKind === "header" ? (server.headerName ?? "none") : server.authKind,
    lastError: server.lastError,
    listedAt: server.listedAt?.toISOString() ?? null,
  };
}

/** A user's own server as admins see it: whose it is and what it offers, to audit or remove it. */
function usersServerView(server: McpServer): ServerView {
  return {
    id: server.id,
    name: server.name,
    url: server.url,
    owner: server.addedBy,
    ...signingOf(server),
    tools: server.tools.map((tool) => ({
      ...toolViewOf(server, tool),
      enabled: true,
      approval: adminPolicyFor(server, tool),
    })),
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
  if (body.fields.own === "yes") return ownServerAction(await requireUser(request), body.fields);
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
        // An admin may remove any server, a user's own included (docs/decisions/094).
        return await changeServer(admin, body.fields, findMcpServer);
      default:
        return answer({ error: "Unknown action." }, 400);
    }
  } catch {
    return answer({ error: STORE_DOWN }, 503);
  }
}

/** The owner's intents on their own servers (own=yes): someone else's server is not found. */
async function ownServerAction(session: SignedIn, fields: Record<string, unknown>) {
  const uid = session.user.uid;
  try {
    switch (fields.intent) {
      case "add-server":
        return await addOwnServer(session, fields);
      case "refresh":
      case "delete-server":
        return await changeServer(session, fields, (db, id) => findOwnMcpServer(db, id, uid));
      default:
        return answer({ error: "Unknown action." }, 400);
    }
  } catch {
    return answer({ error: STORE_DOWN }, 503);
  }
}

function userOf(session: SignedIn) {
  return { uid: session.user.uid, roleKey: roleKey(session) };
}

async function switchTool(session: SignedIn, fields: Record<string, unknown>) {
  const parsed = mcpSwitchSchema.safeParse(fields);
  if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
  const { serverId, tool, enabled } = parsed.data;
  try {
    return await toolStore(async (db) => {
      const server = await findUsableMcpServer(db, serverId, userOf(session));
      const usable = server?.tools.some((listed) => listed.name === tool);
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
      const server = await findUsableMcpServer(db, serverId, userOf(session));
      const listed = server?.tools.find((candidate) => candidate.name === tool);
      if (!server || !listed) return answer({ error: "That tool is not available to you." }, 404);
      const maximum = adminPolicyFor(server, listed);
      const choice = approval === "default" ? null : approval;
      if (choice && effectivePolicy(maximum, choice) !== choice) {
        return answer({ error: tooLoose(server, tool, maximum) }, 400);
      }
      await saveToolApproval(db, session.user.uid, mcpToolSwitchId(serverId, tool), choice === maximum ? null : choice);
      return answer({ ok: true, notice: `${tool}: ${POLICY_LABELS[choice ?? maximum]}.` });
    });
  } catch {
    return answer({ error: "Your choice could not be saved right now. Please try again shortly." }, 503);
  }
}

/**
 * Why a looser choice is refused. On a shared server an admin set the
 * maximum (or left it to the tool's hints); on a user's own server no admin
 * chooses (docs/decisions/094): the maximum comes from the tool's hints
 * alone, and it is below "Run without asking" only for a tool its server
 * does not mark as reading only.
 */
function tooLoose(server: McpServer, tool: string, maximum: ApprovalPolicy): string {
  const loosest = `“${POLICY_LABELS[maximum]}”`;
  return server.ownerUid === null
    ? `Your admin allows at most ${loosest} for ${tool}.`
    : `${tool} allows at most ${loosest}: its server does not mark it “Reads only”.`;
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
  const keyMissing = secretKeyRefusal(parsed.data, fields);
  if (keyMissing) return keyMissing;
  const added = await toolStore((db) => addMcpServer(db, parsed.data, admin.user.email ?? admin.user.uid));
  if (!added) {
    return answer({ errors: { name: "A server with this name already exists." }, values: valuesOf(fields) }, 400);
  }
  return listAdded(added);
}

/** A user adds a server of their own (docs/decisions/094): only if their role may, and up to the cap. */
async function addOwnServer(session: SignedIn, fields: Record<string, unknown>) {
  if (!mayAddOwnServers(roleKey(session))) {
    return answer({ error: "Your role may not add tool servers of its own." }, 403);
  }
  const parsed = addOwnServerSchema.safeParse(fields);
  if (!parsed.success) return refused(parsed.error, fields);
  const keyMissing = secretKeyRefusal(parsed.data, fields);
  if (keyMissing) return keyMissing;
  const owner = { uid: session.user.uid, addedBy: session.user.email ?? session.user.uid };
  const added = await toolStore((db) => addOwnMcpServer(db, parsed.data, owner));
  if (added === "full") return answer({ error: OWN_SERVERS_FULL, values: valuesOf(fields) }, 400);
  if (added === "taken") {
    return answer({ errors: { name: "You already have a server with this name." }, values: valuesOf(fields) }, 400);
  }
  return listAdded(added);
}

/** A header or per-user sign-in is sealed with TOOLS_SECRET_KEY: without it, the form says so. */
function secretKeyRefusal(server: { header?: unknown; oauth?: unknown }, fields: Record<string, unknown>) {
  if (!(server.header || server.oauth) || getConfig().toolsSecretKey) return undefined;
  const field = server.header ? "headerValue" : "auth";
  return answer({ errors: { [field]: new McpSecretKeyMissing().message }, values: valuesOf(fields) }, 400);
}

/** Lists a server's tools as it is added (one each user signs in to waits for the first sign-in). */
async function listAdded(added: McpServer) {
  if (added.authKind === "oauth") {
    // Its tools are listed with a user's sign-in: the adder's own, once they connect (docs/decisions/092).
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

/**
 * "List tools again" and "Remove" (asked twice), on a server `find` gives
 * this person: any for an admin, only their own for its owner. A user's own
 * server is listed again only by its owner (with their sign-in).
 */
async function changeServer(
  session: SignedIn,
  fields: Record<string, unknown>,
  find: (db: Db, id: string) => Promise<McpServer | undefined>,
) {
  const parsed = serverIdSchema.safeParse(fields);
  if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
  const { intent, serverId, confirm } = parsed.data;
  const server = await toolStore((db) => find(db, serverId));
  if (!server) return gone();
  if (intent === "delete-server") {
    if (confirm !== "yes") return answer({ confirmDelete: serverId });
    if (!(await removeServer(server))) return gone();
    return answer({ ok: true, notice: `“${server.name}” was removed.` });
  }
  if (server.ownerUid !== null && server.ownerUid !== session.user.uid) {
    return answer({ error: `Only its owner lists the tools of “${server.name}” again.` }, 403);
  }
  if (server.authKind === "oauth" && !(await isSignedIn(session, serverId))) {
    return answer({ error: `Connect to “${server.name}” first: its tools are listed with your own sign-in.` });
  }
  const listing = await listServerTools(server, session.user.uid);
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
