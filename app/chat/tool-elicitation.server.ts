import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { getConfig } from "~/config.server";
import { formFields, type ElicitationAnswer, type ToolElicitationView } from "~/conversation/tool-elicitation";
import {
  closePendingElicitation,
  elicitationState,
  forgetElicitationAnswer,
  recordElicitation,
} from "~/data/tool-elicitations.server";
import { log } from "~/log/logger.server";
import { escapeForLog } from "~/log/safe-log.server";
import { waitForAnswer } from "./answer-wait.server";
import type { ToolCallScope } from "./tool-approval.server";

/**
 * A server asks the user for input while its tool runs (MCP elicitation,
 * docs/decisions/095): the reply shows the form as a `data-elicitation`
 * part in the call's step and waits, like an approval card — the answer is
 * taken from any tab or device (POST /api/tool-elicitations) and read here.
 * No answer in time, or a Stop, cancels the request; the server decides
 * what its tool does then.
 */

const MAX_MESSAGE_CHARS = 2_000;

type Answered = { status: "accepted" | "declined" | "cancelled" | "expired"; content: ElicitationAnswer | null };

/** The handler a server's call in this reply answers its requests for input with. */
export function askUserInReply(scope: ToolCallScope, call: { toolCallId: string; serverName: string }) {
  return async (request: ElicitRequest["params"], signal: AbortSignal): Promise<ElicitResult> => {
    // Only forms are offered (the client says so); a form the page cannot show is declined.
    const fields = request.mode === "url" ? undefined : formFields(request.requestedSchema);
    if (!fields) {
      log().warn(`[mcp] ${escapeForLog(call.serverName)}: declined a request for input the chat cannot show`);
      return { action: "decline" };
    }
    const id = crypto.randomUUID();
    const message = request.message.slice(0, MAX_MESSAGE_CHARS);
    await recordElicitation(scope.db, {
      id,
      uid: scope.uid,
      conversationId: scope.conversationId,
      runId: scope.runId,
      toolCallId: call.toolCallId,
      serverName: call.serverName,
      message,
      fields,
    });
    const deadline = Date.now() + getConfig().toolCalls.approvalTimeoutMs;
    const view: ToolElicitationView = {
      elicitationId: id,
      toolCallId: call.toolCallId,
      server: call.serverName,
      message,
      fields,
      status: "pending",
      expiresAt: new Date(deadline).toISOString(),
    };
    scope.emit({ type: "data-elicitation", id, data: view });
    const answered = await answerOf(scope, id, deadline, signal);
    scope.emit({ type: "data-elicitation", id, data: { ...view, status: answered.status } });
    if (answered.status !== "accepted") return { action: answered.status === "declined" ? "decline" : "cancel" };
    await forgetElicitationAnswer(scope.db, id);
    return { action: "accept", content: answered.content ?? {} };
  };
}

function answerOf(scope: ToolCallScope, id: string, deadline: number, signal: AbortSignal): Promise<Answered> {
  const read = async () => {
    const state = await elicitationState(scope.db, id);
    return state && state.status !== "pending" ? (state as Answered) : undefined;
  };
  return waitForAnswer<Answered>({
    id,
    deadline,
    signal,
    read,
    close: async (why) =>
      (await closePendingElicitation(scope.db, id, why))
        ? { status: why, content: null }
        : ((await read()) ?? { status: why, content: null }),
  });
}
