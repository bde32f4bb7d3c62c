/**
 * An MCP server's tools as AI SDK tools (docs/decisions/089), beside the
 * built-in ones (app/llm/tools.server.ts). The input schema is the server's
 * JSON Schema as it is; the output kept in the conversation is the whole
 * outcome (failure, truncation), and the model reads its framed text.
 */
import { jsonSchema, tool, type ToolSet } from "ai";
import type { McpElicitationHandler, McpProgress, McpSession, McpToolInfo, McpToolOutcome } from "./client.server";
import { McpToolNames } from "./tool-names.server";

export interface McpToolsOptions {
  /** The server's slug in the registry: the start of every function name and the `server` of the way back. */
  namePrefix: string;
  /** Names already given in this request (other servers, built-in tools); a new set when omitted. */
  names?: McpToolNames;
  /** Per call; default MCP_CALL_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Each progress report of a call, with the call it belongs to (the model's id for it). */
  onProgress?: (call: { functionName: string; toolCallId: string }, progress: McpProgress) => void;
  /** Answers the server's requests for input during a call, given the call they belong to. */
  onElicitation?: (call: { functionName: string; toolCallId: string }) => McpElicitationHandler;
  /** The server's name as people read it: each tool's title (what a reply's tool step shows) ends with it. */
  serverName?: string;
}

/** `infos` (a choice among `session.listTools()`) keyed by function name; `options.names` leads back from each name. */
export function mcpTools(session: McpSession, infos: readonly McpToolInfo[], options: McpToolsOptions): ToolSet {
  const names = options.names ?? new McpToolNames();
  const tools: ToolSet = {};
  for (const info of infos) {
    const functionName = names.add(options.namePrefix, info.name);
    tools[functionName] = tool({
      title: [info.title ?? info.name, options.serverName].filter(Boolean).join(" · "),
      description: info.title ? `${info.title}: ${info.description}` : info.description,
      inputSchema: jsonSchema<Record<string, unknown>>(info.inputSchema),
      execute: (input, { abortSignal, toolCallId }): Promise<McpToolOutcome> =>
        session.callTool(info.name, input, {
          signal: abortSignal,
          timeoutMs: options.timeoutMs,
          onProgress:
            options.onProgress && ((progress) => options.onProgress?.({ functionName, toolCallId }, progress)),
          onElicitation: options.onElicitation?.({ functionName, toolCallId }),
        }),
      toModelOutput: ({ output }) => ({ type: "text", value: (output as McpToolOutcome).text }),
    });
  }
  return tools;
}
