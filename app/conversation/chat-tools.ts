import { z } from "zod";
import { CHAT_TOOLS_OFF_MAX, TOOL_ID_MAX_CHARS } from "~/settings/chat-limits";

/**
 * A chat's own choice of tools (the composer's tools menu): the ids switched
 * off for this chat only, shared by the chat request and the chat's tools API.
 * An id is a built-in tool's (app/llm/tools.server.ts) or a server tool's
 * switch id, `mcp:<server id>/<tool>` (app/data/mcp-servers.server.ts). The
 * server also checks that a built-in id names a tool it has
 * (app/chat/chat-tools.server.ts); the choice only ever takes tools away.
 */

const BUILT_IN_ID = /^[a-z][a-z0-9_]{0,63}$/;
// A tool's name as its server lists it: any printable text, at most 128 characters (the MCP limit).
const SERVER_TOOL_ID = /^mcp:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[^\p{Cc}\p{Cs}]{1,128}$/u;

export const UNKNOWN_TOOL_ID = "is not a tool id (a built-in tool's, or mcp:<server id>/<tool>).";

export function isToolIdShape(id: string): boolean {
  return BUILT_IN_ID.test(id) || SERVER_TOOL_ID.test(id);
}

export const toolsOffSchema = z
  .array(
    z
      .string({ error: "A tool id must be text." })
      .max(TOOL_ID_MAX_CHARS, { error: `A tool id is at most ${TOOL_ID_MAX_CHARS} characters.` })
      .refine(isToolIdShape, { error: (issue) => `“${String(issue.input)}” ${UNKNOWN_TOOL_ID}` }),
    { error: "The tools switched off must be a list of tool ids." },
  )
  .max(CHAT_TOOLS_OFF_MAX, { error: `At most ${CHAT_TOOLS_OFF_MAX} tools can be switched off for a chat.` })
  // One entry per tool, in a stable order: what is stored reads the same however it was sent.
  .transform((ids) => [...new Set(ids)].sort());

export type ToolsOff = z.infer<typeof toolsOffSchema>;

/** A tool in the composer's menu: its switch id and what the user reads. */
export interface ChatToolOption {
  id: string;
  title: string;
}

/** The menu's groups: the built-in functions, then each server the user may use. */
export interface ChatToolGroup {
  id: string;
  name: string;
  tools: ChatToolOption[];
}
