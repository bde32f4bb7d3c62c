import { json } from "@remix-run/node";
import { z } from "zod";
import { isSameOrigin } from "~/auth/request.server";
import { logBackendFault } from "~/deadline.server";
import { decideToolCall } from "~/data/tool-calls.server";
import { apiDatabase, apiSignedIn } from "~/http/api-session.server";
import { readBody } from "~/http/forms.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { wakeAnswerWait } from "./answer-wait.server";

/**
 * POST /api/tool-approvals {approvalId, decision}: the chat's owner answers
 * an approval card from any tab or device (docs/decisions/091). The decision
 * is written once (the first wins); the reply waiting for it reads it.
 *
 *   200 decided · 400 bad input · 401 not signed in · 403 cross-origin
 *   409 decided already, or no longer waiting · 503 a store is unreachable
 */

const PRIVATE = { "Cache-Control": "no-store" };

const decisionSchema = z.object({
  approvalId: z.uuid({ message: "Name the call to decide: an approvalId (a UUID)." }),
  decision: z.enum(["approve", "deny", "allow-chat"], { message: "decision must be approve, deny or allow-chat." }),
});

export async function decideToolCallResponse(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return json({ error: "Cross-origin requests are refused." }, { status: 403 });
  const who = await apiSignedIn(request);
  if (who instanceof Response) return who;
  const body = await readBody(request, BODY_LIMITS.small);
  if ("refusal" in body) return body.refusal;
  const parsed = decisionSchema.safeParse(body.fields);
  if (!parsed.success) return json({ error: parsed.error.issues[0].message }, { status: 400 });
  const db = await apiDatabase("a tool call's approval", unavailable);
  if (db instanceof Response) return db;
  const { approvalId, decision } = parsed.data;
  try {
    const decided = await decideToolCall(db, {
      id: approvalId,
      uid: who.user.uid,
      decision,
      by: who.user.email ?? who.user.uid,
    });
    if (!decided) {
      return json(
        { error: "This call is no longer waiting for an answer: it was decided, or its time ran out." },
        { status: 409, headers: PRIVATE },
      );
    }
    wakeAnswerWait(approvalId);
    return json({ status: decided.status }, { headers: PRIVATE });
  } catch (error) {
    logBackendFault("postgres", "deciding a tool call", error);
    return unavailable();
  }
}

const unavailable = () =>
  json({ error: "Your answer could not be saved right now. Please try again shortly." }, { status: 503 });
