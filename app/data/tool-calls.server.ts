import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { chatToolAllowances, toolCalls, type ToolCallRow } from "~/db/schema";
import { mcpToolSwitchId } from "./mcp-servers.server";
import type { ApprovalDecision, ApprovalPolicy, ApprovalStatus } from "~/conversation/tool-approval";

/**
 * The record of every call of a server's tool, and its approval
 * (docs/decisions/091): written when the model asks for the call, decided
 * by the chat's owner from any tab or device (a conditional update, so two
 * decisions cannot both win), and finished with how the call ended.
 */

export interface NewToolCall {
  id: string;
  uid: string;
  email: string | null;
  conversationId: string;
  runId: string;
  toolCallId: string;
  serverId: string;
  serverName: string;
  tool: string;
  title: string;
  arguments: unknown;
  policy: ApprovalPolicy;
  status: ApprovalStatus | "auto" | "allowed";
}

export async function recordToolCall(db: Db, call: NewToolCall): Promise<void> {
  await db.insert(toolCalls).values({ ...call, arguments: call.arguments ?? {} });
}

/**
 * The owner's decision on a pending call; the row as decided, or undefined
 * when there is no such pending call of theirs (decided already, expired, another user's).
 */
export async function decideToolCall(
  db: Db,
  { id, uid, decision, by }: { id: string; uid: string; decision: ApprovalDecision; by: string },
): Promise<ToolCallRow | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(toolCalls)
      .set({ status: decision === "deny" ? "denied" : "approved", decidedBy: by, decidedAt: sql`now()` })
      .where(and(eq(toolCalls.id, id), eq(toolCalls.uid, uid), eq(toolCalls.status, "pending")))
      .returning();
    if (row && decision === "allow-chat") {
      await tx
        .insert(chatToolAllowances)
        .values({ conversationId: row.conversationId, uid, switchId: switchIdOf(row), grantedBy: by })
        .onConflictDoNothing();
    }
    return row;
  });
}

function switchIdOf(row: Pick<ToolCallRow, "serverId" | "tool">): string {
  return mcpToolSwitchId(row.serverId ?? "", row.tool);
}

/** Ends a call still pending: no one answered in time, or the reply was stopped. */
export async function closePendingToolCall(db: Db, id: string, status: "expired" | "cancelled"): Promise<boolean> {
  const rows = await db
    .update(toolCalls)
    .set({ status, decidedAt: sql`now()` })
    .where(and(eq(toolCalls.id, id), eq(toolCalls.status, "pending")))
    .returning({ id: toolCalls.id });
  return rows.length > 0;
}

export async function toolCallStatus(
  db: Db,
  id: string,
): Promise<{ status: string; allowedForChat: boolean } | undefined> {
  const [row] = await db
    .select({
      status: toolCalls.status,
      conversationId: toolCalls.conversationId,
      serverId: toolCalls.serverId,
      tool: toolCalls.tool,
    })
    .from(toolCalls)
    .where(eq(toolCalls.id, id));
  if (!row) return undefined;
  // A call of a server removed since has no switch a chat could allow.
  const allowedForChat =
    row.serverId !== null && (await chatAllowsTool(db, row.conversationId, mcpToolSwitchId(row.serverId, row.tool)));
  return { status: row.status, allowedForChat };
}

export async function finishToolCall(db: Db, id: string, outcome: string, durationMs: number): Promise<void> {
  await db.update(toolCalls).set({ outcome, durationMs }).where(eq(toolCalls.id, id));
}

/** Whether the chat allowed this tool for the rest of it. */
export async function chatAllowsTool(db: Db, conversationId: string, switchId: string): Promise<boolean> {
  const rows = await db
    .select({ at: chatToolAllowances.createdAt })
    .from(chatToolAllowances)
    .where(and(eq(chatToolAllowances.conversationId, conversationId), eq(chatToolAllowances.switchId, switchId)))
    .limit(1);
  return rows.length > 0;
}

/** The chat allows the tool from now on (a `once` tool's first approval). */
export async function allowToolForChat(
  db: Db,
  allowance: { conversationId: string; uid: string; switchId: string; grantedBy: string },
): Promise<void> {
  await db.insert(chatToolAllowances).values(allowance).onConflictDoNothing();
}

/** The latest calls, for the admins' record. */
export async function recentToolCalls(db: Db, limit = 50): Promise<ToolCallRow[]> {
  return db.select().from(toolCalls).orderBy(desc(toolCalls.createdAt)).limit(limit);
}
