import { and, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { toolElicitations } from "~/db/schema";
import type { ElicitationAnswer, ElicitationField, ElicitationStatus } from "~/conversation/tool-elicitation";

/**
 * A server's requests for input from the user (docs/decisions/095): written
 * when the request arrives, answered by the chat's owner from any tab or
 * device (a conditional update, so two answers cannot both win), and read
 * by the call waiting for it. The answer is kept only until the call has
 * read it.
 */

export interface NewElicitation {
  id: string;
  uid: string;
  conversationId: string;
  runId: string;
  toolCallId: string;
  serverName: string;
  message: string;
  fields: ElicitationField[];
}

export async function recordElicitation(db: Db, request: NewElicitation): Promise<void> {
  await db.insert(toolElicitations).values({ ...request, status: "pending" });
}

/** The form a pending request of this user's shows, to check an answer against; undefined when there is none. */
export async function pendingElicitationFields(
  db: Db,
  { id, uid }: { id: string; uid: string },
): Promise<ElicitationField[] | undefined> {
  const [row] = await db
    .select({ fields: toolElicitations.fields })
    .from(toolElicitations)
    .where(and(eq(toolElicitations.id, id), eq(toolElicitations.uid, uid), eq(toolElicitations.status, "pending")));
  return row?.fields as ElicitationField[] | undefined;
}

/** The owner's answer to a pending request; false when there is no such pending request of theirs. */
export async function answerElicitation(
  db: Db,
  answer: { id: string; uid: string; status: "accepted" | "declined" | "cancelled"; content?: ElicitationAnswer },
): Promise<boolean> {
  const rows = await db
    .update(toolElicitations)
    .set({ status: answer.status, content: answer.content ?? null, decidedAt: sql`now()` })
    .where(
      and(
        eq(toolElicitations.id, answer.id),
        eq(toolElicitations.uid, answer.uid),
        eq(toolElicitations.status, "pending"),
      ),
    )
    .returning({ id: toolElicitations.id });
  return rows.length > 0;
}

/** Ends a request still pending: no one answered in time, or the reply was stopped. */
export async function closePendingElicitation(db: Db, id: string, status: "expired" | "cancelled"): Promise<boolean> {
  const rows = await db
    .update(toolElicitations)
    .set({ status, decidedAt: sql`now()` })
    .where(and(eq(toolElicitations.id, id), eq(toolElicitations.status, "pending")))
    .returning({ id: toolElicitations.id });
  return rows.length > 0;
}

export async function elicitationState(
  db: Db,
  id: string,
): Promise<{ status: ElicitationStatus; content: ElicitationAnswer | null } | undefined> {
  const [row] = await db
    .select({ status: toolElicitations.status, content: toolElicitations.content })
    .from(toolElicitations)
    .where(eq(toolElicitations.id, id));
  return row
    ? { status: row.status as ElicitationStatus, content: row.content as ElicitationAnswer | null }
    : undefined;
}

/** The answer was sent to the server: it is not kept. */
export async function forgetElicitationAnswer(db: Db, id: string): Promise<void> {
  await db.update(toolElicitations).set({ content: null }).where(eq(toolElicitations.id, id));
}
