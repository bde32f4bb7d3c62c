import { and, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { conversations, messages, replyNotices, replyRuns } from "~/db/schema";

/**
 * The store's half of telling a user a reply is done (docs/decisions/101):
 * the once-only claim, and what a notice may say.
 */

/** "ended" for a run's end, "approval:<call id>" for a tool call waiting for the user. */
export type NoticeKind = "ended" | `approval:${string}`;

/**
 * Claims the notice: the first instance to insert the row sends it, any
 * other finds it taken. False also when the run's row is gone (pruned, or
 * its account deleted): there is nothing to tell then.
 */
export async function claimNotice(db: Db, runId: string, kind: NoticeKind): Promise<boolean> {
  const result = await db.execute<{ run_id: string }>(sql`
    insert into ${replyNotices} (run_id, kind)
    select id, ${kind} from ${replyRuns} where id = ${runId}::uuid
    on conflict do nothing
    returning run_id
  `);
  return result.rows.length > 0;
}

export interface NoticeFacts {
  /** The chat's title as stored now; null until it has one. */
  title: string | null;
  /** The stored reply's text (empty when nothing was stored, e.g. a failed reply). */
  replyText: string;
  startedAt: Date | null;
}

/** The chat's title, the reply's text and when the run started, for the notice. */
export async function noticeFacts(
  db: Db,
  run: { id: string; uid: string; conversationId: string },
): Promise<NoticeFacts> {
  const [conversation] = await db
    .select({ title: conversations.title })
    .from(conversations)
    .where(and(eq(conversations.id, run.conversationId), eq(conversations.uid, run.uid)))
    .limit(1);
  const [reply] = await db
    .select({ content: messages.content })
    .from(messages)
    .where(and(eq(messages.id, run.id), eq(messages.conversationId, run.conversationId)))
    .limit(1);
  const [started] = await db
    .select({
      startedAt: replyRuns.startedAt,
      // A new chat's conversation is stored with its first exchange: while a call waits for approval,
      // the title it will get is in the run (never a temporary chat's: it is titled by nobody yet).
      pendingTitle: sql<string | null>`case when ${replyRuns.exchange}->'create'->>'temporary' = 'true' then null
        else ${replyRuns.exchange}->>'title' end`,
    })
    .from(replyRuns)
    .where(eq(replyRuns.id, run.id))
    .limit(1);
  return {
    title: conversation?.title ?? started?.pendingTitle ?? null,
    replyText: reply?.content ?? "",
    startedAt: started?.startedAt ?? null,
  };
}

/** What came of a claimed notice: pushed, emailed, or why not. Read by operators and tests. */
export type NoticeOutcome =
  "pushed" | "emailed" | "tab visible" | "short reply" | "no verified email" | "not delivered";

export async function recordNoticeOutcome(
  db: Db,
  runId: string,
  kind: NoticeKind,
  outcome: NoticeOutcome,
): Promise<void> {
  await db
    .update(replyNotices)
    .set({ outcome })
    .where(and(eq(replyNotices.runId, runId), eq(replyNotices.kind, kind)));
}
