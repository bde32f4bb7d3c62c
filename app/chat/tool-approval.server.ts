import type { UIMessageChunk } from "ai";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import type { ApprovalPolicy, ApprovalStatus, ToolApprovalView } from "~/conversation/tool-approval";
import { mcpToolSwitchId } from "~/data/mcp-servers.server";
import { hitRateLimit, secondsInWords } from "~/data/rate-limits.server";
import {
  allowToolForChat,
  chatAllowsTool,
  closePendingToolCall,
  recordToolCall,
  toolCallStatus,
} from "~/data/tool-calls.server";
import { waitForAnswer } from "./answer-wait.server";
import { noticeApprovalWait } from "./notify/reply-notices.server";

/**
 * The gate before a server's tool acts (docs/decisions/091). A call the
 * policy lets through is recorded and runs; one that needs a person puts an
 * approval card in the reply (a `data-approval` part) and waits — the reply
 * is a run, so the card survives a reload and can be answered from any tab
 * or device: the decision is written to PostgreSQL, and the wait reads it
 * (app/chat/answer-wait.server.ts). No answer in time, or a Stop, denies it.
 */

/** What a reply lends its tools: who is asking, where, and its stream. */
export interface ToolCallScope {
  db: Db;
  uid: string;
  /** The account's email, for the admins' record of calls. */
  email?: string;
  conversationId: string;
  runId: string;
  /** Adds a chunk to the reply (stored with it, sent to every reader). */
  emit(chunk: UIMessageChunk): void;
  /** Keeps the wait for the model's next token from ending the reply while a person decides; call the release after. */
  holdWatchdog(): () => void;
}

export interface GatedCall {
  serverId: string;
  serverName: string;
  tool: string;
  title: string;
  policy: ApprovalPolicy;
  toolCallId: string;
  input: unknown;
  signal?: AbortSignal;
}

export type Gate = { run: true; callId: string } | { run: false; callId?: string; why: string };

export async function gateToolCall(scope: ToolCallScope, call: GatedCall): Promise<Gate> {
  const { db, uid } = scope;
  const { perMinute } = getConfig().toolCalls;
  const limit = await hitRateLimit(db, `tool-calls:${uid}`, perMinute, 60);
  if (!limit.allowed) {
    return {
      run: false,
      why: `Not run: this account may call tools ${perMinute} times a minute. Try again in ${secondsInWords(limit.retryAfterSeconds)}.`,
    };
  }
  const callId = crypto.randomUUID();
  const switchId = mcpToolSwitchId(call.serverId, call.tool);
  const record = (status: Parameters<typeof recordToolCall>[1]["status"]) =>
    recordToolCall(db, {
      id: callId,
      uid,
      email: scope.email ?? null,
      conversationId: scope.conversationId,
      runId: scope.runId,
      toolCallId: call.toolCallId,
      serverId: call.serverId,
      serverName: call.serverName,
      tool: call.tool,
      title: call.title,
      arguments: call.input,
      policy: call.policy,
      status,
    });
  if (call.policy === "auto") {
    await record("auto");
    return { run: true, callId };
  }
  if (await chatAllowsTool(db, scope.conversationId, switchId)) {
    await record("allowed");
    return { run: true, callId };
  }
  await record("pending");
  const view: ToolApprovalView = {
    approvalId: callId,
    toolCallId: call.toolCallId,
    server: call.serverName,
    tool: call.title,
    arguments: call.input,
    status: "pending",
    expiresAt: new Date(Date.now() + getConfig().toolCalls.approvalTimeoutMs).toISOString(),
  };
  const show = (update: Partial<ToolApprovalView>) =>
    scope.emit({ type: "data-approval", id: callId, data: { ...view, ...update } });
  show({});
  // The user may be away: their devices hear that the reply waits for them (docs/decisions/101).
  noticeApprovalWait(db, { id: scope.runId, uid, conversationId: scope.conversationId }, callId);
  const release = scope.holdWatchdog();
  try {
    const decided = await decision(db, callId, call.signal);
    if (decided.status === "approved" && call.policy === "once" && !decided.allowedForChat) {
      await allowToolForChat(db, { conversationId: scope.conversationId, uid, switchId, grantedBy: uid });
    }
    const allowedForChat = decided.allowedForChat || (decided.status === "approved" && call.policy === "once");
    show({ status: decided.status, allowedForChat });
    if (decided.status === "approved") return { run: true, callId };
    return { run: false, callId, why: DENIALS[decided.status] };
  } finally {
    release();
  }
}

const DENIALS: Record<Exclude<ApprovalStatus, "approved" | "pending">, string> = {
  denied:
    "The user denied this call: it was not run. Go on without this tool, and do not call it again for this request.",
  expired: "No one approved this call in time: it was not run. Go on without it.",
  cancelled: "The reply was stopped before this call was approved: it was not run.",
};

type Decided = { status: Exclude<ApprovalStatus, "pending">; allowedForChat: boolean };

/** Waits for the owner's decision, the deadline, or the reply's end (Stop, shutdown). */
function decision(db: Db, id: string, signal: AbortSignal | undefined): Promise<Decided> {
  return waitForAnswer<Decided>({
    id,
    deadline: Date.now() + getConfig().toolCalls.approvalTimeoutMs,
    signal,
    read: async () => {
      const row = await toolCallStatus(db, id);
      return row && row.status !== "pending" ? (row as Decided) : undefined;
    },
    close: (why) => closed(db, id, why),
  });
}

/** Ends the wait for a pending call; a decision that arrived meanwhile wins. */
async function closed(db: Db, id: string, status: "expired" | "cancelled"): Promise<Decided> {
  if (await closePendingToolCall(db, id, status)) return { status, allowedForChat: false };
  const row = await toolCallStatus(db, id);
  return (row as Decided | undefined) ?? { status, allowedForChat: false };
}
