import { json } from "@remix-run/node";
import { z } from "zod";
import { isSameOrigin } from "~/auth/request.server";
import { checkAnswer } from "~/conversation/tool-elicitation";
import { logBackendFault } from "~/deadline.server";
import { answerElicitation, pendingElicitationFields } from "~/data/tool-elicitations.server";
import { apiDatabase, apiSignedIn } from "~/http/api-session.server";
import { readBody } from "~/http/forms.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { wakeAnswerWait } from "./answer-wait.server";

/**
 * POST /api/tool-elicitations {elicitationId, action, content}: the chat's
 * owner answers a server's request for input from any tab or device
 * (docs/decisions/095). An accepted answer is checked against the form the
 * reply showed, field by field; the first answer wins; the call waiting for
 * it reads it and sends it to the server.
 *
 *   200 answered · 400 bad input (with fieldErrors for the form) · 401 not signed in
 *   403 cross-origin · 409 answered already, or no longer waiting · 503 a store is unreachable
 */

const PRIVATE = { "Cache-Control": "no-store" };

const answerSchema = z.object({
  elicitationId: z.uuid({ message: "Name the request to answer: an elicitationId (a UUID)." }),
  action: z.enum(["accept", "decline", "cancel"], { message: "action must be accept, decline or cancel." }),
  content: z.record(z.string(), z.unknown()).optional(),
});

const STATUS = { accept: "accepted", decline: "declined", cancel: "cancelled" } as const;

const gone = () =>
  json(
    { error: "This request is no longer waiting for an answer: it was answered, or its time ran out." },
    { status: 409, headers: PRIVATE },
  );

export async function answerElicitationResponse(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return json({ error: "Cross-origin requests are refused." }, { status: 403 });
  const who = await apiSignedIn(request);
  if (who instanceof Response) return who;
  const body = await readBody(request, BODY_LIMITS.document);
  if ("refusal" in body) return body.refusal;
  const parsed = answerSchema.safeParse(body.fields);
  if (!parsed.success) return json({ error: parsed.error.issues[0].message }, { status: 400 });
  const db = await apiDatabase("an answer to a tool server", unavailable);
  if (db instanceof Response) return db;
  const { elicitationId: id, action, content } = parsed.data;
  const uid = who.user.uid;
  try {
    const fields = await pendingElicitationFields(db, { id, uid });
    if (!fields) return gone();
    const checked = action === "accept" ? checkAnswer(fields, content ?? {}) : { content: undefined };
    if ("fieldErrors" in checked) {
      return json({ error: "Some answers need a change.", fieldErrors: checked.fieldErrors }, { status: 400 });
    }
    if (!(await answerElicitation(db, { id, uid, status: STATUS[action], content: checked.content }))) return gone();
    wakeAnswerWait(id);
    return json({ status: STATUS[action] }, { headers: PRIVATE });
  } catch (error) {
    logBackendFault("postgres", "answering a tool server's request", error);
    return unavailable();
  }
}

const unavailable = () =>
  json({ error: "Your answer could not be saved right now. Please try again shortly." }, { status: 503 });
