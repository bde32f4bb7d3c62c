import { json } from "@remix-run/node";
import type { SignedIn } from "~/auth/session.server";
import type { Db } from "~/db/client.server";
import { setConversationToolOff } from "~/data/conversations.server";
import { isMcpToolSwitchId, mcpToolSwitchId } from "~/data/mcp-servers.server";
import { getSwitchedOffToolIds } from "~/data/preferences.server";
import { builtInToolIds, builtInTools } from "~/llm/tools.server";
import { CHAT_TOOLS_OFF_MAX } from "~/settings/chat-limits";
import { usableServers } from "./server-tools.server";
import { roleKey } from "~/settings/role-settings";
import { isToolIdShape, UNKNOWN_TOOL_ID, type ChatToolGroup } from "~/conversation/chat-tools";

/**
 * A chat's own choice of tools (the composer's tools menu, docs/features.md):
 * what the menu lists, the check of a choice, and saving it on a conversation.
 * The choice only takes tools away from what the role and the user's own
 * switches allow (app/chat/server-tools.server.ts, docs/decisions/090): an id
 * the role may not use stays unavailable whatever a request says.
 */

/** The id of the menu's group of built-in functions (a server's group is its id). */
export const BUILT_IN_GROUP = "built-in";

/**
 * Every tool this user may use now, for the menu: the built-in functions they
 * have not switched off, then each server their role may use with its tools
 * they have not switched off (a server each user signs in to, once they
 * have) — from the stored tool lists, without connecting to any server.
 */
export async function chatToolMenu(db: Db, session: SignedIn): Promise<ChatToolGroup[]> {
  const uid = session.user.uid;
  const switchedOff = await getSwitchedOffToolIds(db, uid);
  const servers = await usableServers(db, { uid, roleKey: roleKey(session), switchedOff });
  const builtIn: ChatToolGroup = {
    id: BUILT_IN_GROUP,
    name: "Built-in",
    tools: builtInTools()
      .filter((tool) => !switchedOff.has(tool.id))
      .map((tool) => ({ id: tool.id, title: tool.name })),
  };
  const fromServers = servers.map((server) => ({
    id: server.id,
    name: server.name,
    tools: server.tools.map((tool) => ({ id: mcpToolSwitchId(server.id, tool.name), title: tool.title ?? tool.name })),
  }));
  return [builtIn, ...fromServers].filter((group) => group.tools.length > 0);
}

/**
 * Why a well-formed choice can't be taken, if so: a built-in id must name a
 * tool this server has. A server's tool may be gone since the page was
 * loaded; its id then matches nothing and takes nothing away.
 */
export function unknownToolProblem(ids: readonly string[] | undefined): string | null {
  if (!ids) return null;
  const known = new Set(builtInToolIds());
  const unknown = ids.find((id) => !isMcpToolSwitchId(id) && !known.has(id));
  return unknown === undefined ? null : `“${unknown}” ${UNKNOWN_TOOL_ID}`;
}

/** The tools a reply may not use in this chat: the stored choice and the request's together. */
export function chatToolsOff(stored: readonly string[] | null | undefined, requested: readonly string[] | undefined) {
  return [...new Set([...(stored ?? []), ...(requested ?? [])])];
}

/**
 * The menu's change to one tool of an existing chat (intent=tool on the chat
 * page: `tool`, the id, and `enabled`, on or off), kept on the conversation at
 * once; one tool at a time, so that two tabs' changes both count. A new
 * chat's choice goes with its messages instead (it is not stored yet).
 */
export async function changeChatTool(db: Db, uid: string, conversationId: string, form: FormData): Promise<Response> {
  const id = String(form.get("tool") ?? "");
  const enabled = form.get("enabled");
  const problem = !isToolIdShape(id) ? `“${id}” ${UNKNOWN_TOOL_ID}` : unknownToolProblem([id]);
  if (problem) return json({ error: problem }, { status: 400 });
  if (enabled !== "on" && enabled !== "off")
    return json({ error: "Say whether the tool is on or off." }, { status: 400 });
  const changed = await setConversationToolOff(db, uid, conversationId, id, enabled === "off", CHAT_TOOLS_OFF_MAX);
  if (changed === "full") {
    return json({ error: `At most ${CHAT_TOOLS_OFF_MAX} tools can be switched off for a chat.` }, { status: 400 });
  }
  if (!changed) throw json({ error: "This conversation doesn't exist." }, { status: 404 });
  return json({ ok: true, toolsOff: changed });
}
