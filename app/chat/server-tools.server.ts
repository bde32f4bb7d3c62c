import type { Tool, ToolSet } from "ai";
import type { Db } from "~/db/client.server";
import type { ListedMcpTool } from "~/db/schema";
import type { ApprovalPolicy } from "~/conversation/tool-approval";
import { getToolApprovals } from "~/data/preferences.server";
import { mcpServersFor, mcpToolSwitchId, policyFor, type McpServer } from "~/data/mcp-servers.server";
import { finishToolCall } from "~/data/tool-calls.server";
import { connectionStates } from "~/data/mcp-oauth.server";
import { logBackendFault } from "~/deadline.server";
import { mcpTools } from "~/mcp/ai-tools.server";
import type { McpProgress, McpToolOutcome } from "~/mcp/client.server";
import { McpToolNames } from "~/mcp/tool-names.server";
import { forgetServerSession, serverSession } from "~/tools/server-connection.server";
import { gateToolCall, type ToolCallScope } from "./tool-approval.server";
import { askUserInReply } from "./tool-elicitation.server";

/**
 * The MCP tools one reply may offer its model (docs/decisions/090): only the
 * servers and tools the user's role may use, less those the user switched
 * off. A server that cannot be reached leaves its tools out of this reply;
 * the reply goes on with the rest. Each call passes the approval gate first
 * (docs/decisions/091) and is recorded with how it ended; a server's request
 * for input during a call is shown to the user as a form (docs/decisions/095).
 * A server each user signs in to offers its tools only to a user signed in
 * and not asked to reconnect (docs/decisions/092).
 */
export async function serverToolsFor(
  db: Db,
  who: { uid: string; roleKey: string; switchedOff: readonly string[]; reserved: Iterable<string> },
  scope: ToolCallScope,
): Promise<ToolSet> {
  const [servers, choices] = await Promise.all([usableServers(db, who), getToolApprovals(db, who.uid)]);
  const names = new McpToolNames(who.reserved);
  const sets = await Promise.all(servers.map((server) => toolsOf(server, names, { scope, choices })));
  return Object.assign({}, ...sets) as ToolSet;
}

/**
 * The servers this user may use now — the shared ones with only the tools
 * their role allows, and their own (docs/decisions/094) — less the tools they
 * switched off: from the stored tool lists, without connecting (the
 * composer's tools menu lists the same, app/chat/chat-tools.server.ts).
 */
export async function usableServers(
  db: Db,
  who: { uid: string; roleKey: string; switchedOff: Iterable<string> },
): Promise<McpServer[]> {
  const off = new Set(who.switchedOff);
  const [allowed, signedIn] = await Promise.all([mcpServersFor(db, who), connectionStates(db, who.uid)]);
  return allowed
    .filter((server) => server.authKind !== "oauth" || signedIn.get(server.id) === "connected")
    .map((server) => ({
      ...server,
      tools: server.tools.filter((tool) => !off.has(mcpToolSwitchId(server.id, tool.name))),
    }))
    .filter((server) => server.tools.length > 0);
}

interface Gating {
  scope: ToolCallScope;
  choices: ReadonlyMap<string, string>;
}

async function toolsOf(server: McpServer, names: McpToolNames, gating: Gating): Promise<ToolSet> {
  try {
    const session = await serverSession(server, gating.scope.uid);
    const allowed = new Map(server.tools.map((tool) => [tool.name, tool]));
    // The server's own list now (its schemas may have changed), but never a tool the role may not use.
    const infos = (await session.listTools()).filter((info) => allowed.has(info.name));
    const tools = mcpTools(session, infos, {
      namePrefix: serverSlug(server.name),
      names,
      serverName: server.name,
      onProgress: progressInReply(gating.scope),
      onElicitation: ({ toolCallId }) => askUserInReply(gating.scope, { toolCallId, serverName: server.name }),
    });
    const gated: ToolSet = {};
    for (const [name, tool] of Object.entries(tools)) {
      // The name mcpTools gave it leads back to the tool the role allowed.
      const listed = allowed.get(names.lookup(name)!.tool)!;
      gated[name] = behindGate(tool, server, listed, policyFor(server, listed, gating.choices), gating.scope);
    }
    return gated;
  } catch (error) {
    logBackendFault("mcp", `connecting to the tool server ${server.name}`, error);
    return {};
  }
}

/** A progress report is shown at most this often per call: a chatty server does not flood the reply. */
const PROGRESS_EVERY_MS = 250;

/** Shows each call's progress in its tool step (a `data-tool-progress` part, replaced in place). */
function progressInReply(scope: ToolCallScope) {
  const shownAt = new Map<string, number>();
  return ({ toolCallId }: { toolCallId: string }, { progress, total, message }: McpProgress) => {
    const now = Date.now();
    const last = shownAt.get(toolCallId);
    const done = total !== undefined && progress >= total;
    if (last !== undefined && now - last < PROGRESS_EVERY_MS && !done) return;
    shownAt.set(toolCallId, now);
    scope.emit({ type: "data-tool-progress", id: toolCallId, data: { toolCallId, progress, total, message } });
  };
}

type ExecutionOptions = Parameters<NonNullable<Tool["execute"]>>[1];

/** The tool, run only once the gate lets it through; what the gate refused is told to the model as the result. */
function behindGate(
  tool: Tool,
  server: McpServer,
  listed: ListedMcpTool,
  policy: ApprovalPolicy,
  scope: ToolCallScope,
): Tool {
  const execute = tool.execute!;
  return {
    ...tool,
    execute: async (input: unknown, options: ExecutionOptions) => {
      // A call may take minutes (a person deciding, a slow server): the model is not late meanwhile.
      const release = scope.holdWatchdog();
      try {
        return await gatedCall(execute, input, options, { server, listed, policy, scope });
      } finally {
        release();
      }
    },
  } as Tool;
}

async function gatedCall(
  execute: NonNullable<Tool["execute"]>,
  input: unknown,
  options: ExecutionOptions,
  {
    server,
    listed,
    policy,
    scope,
  }: { server: McpServer; listed: ListedMcpTool; policy: ApprovalPolicy; scope: ToolCallScope },
): Promise<McpToolOutcome> {
  const gate = await gateToolCall(scope, {
    serverId: server.id,
    serverName: server.name,
    tool: listed.name,
    title: listed.title ?? listed.name,
    policy,
    toolCallId: options.toolCallId,
    input,
    signal: options.abortSignal,
  });
  if (!gate.run) return refusedOutcome(gate.why);
  const started = Date.now();
  const outcome = (await execute(input, options)) as McpToolOutcome;
  // A dead connection (a restarted server, an expired session) is made again for the next reply.
  if (outcome.failure === "transport") forgetServerSession(server, scope.uid);
  const ended = outcome.failure ?? (outcome.isError ? "error" : "ok");
  await finishToolCall(scope.db, gate.callId, ended, Date.now() - started).catch((error) =>
    logBackendFault("postgres", "recording how a tool call ended", error),
  );
  return outcome;
}

function refusedOutcome(why: string): McpToolOutcome & { refused: true } {
  return { text: why, isError: true, truncated: false, refused: true };
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
