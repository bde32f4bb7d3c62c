import { json } from "@remix-run/node";
import { createUIMessageStreamResponse } from "ai";
import { isSameOrigin } from "~/auth/request.server";
import { logBackendFault } from "~/deadline.server";
import { apiDatabase, apiSignedIn } from "~/http/api-session.server";
import { BODY_LIMITS, bodyTooLarge, readCapped } from "~/http/body-limit.server";
import { getRun } from "./run-store.server";
import { readRun, stopRun } from "./runs.server";
import { isUuid } from "~/ids/uuid";

/**
 * GET /api/runs/<id>: a reply being generated, as the same UI message stream
 * POST /api/chat sends — from its first chunk, then live until it ends — to
 * its owner, on any instance (docs/decisions/070).
 * POST /api/runs/stop {messageId} or {runId}: stops it wherever it runs.
 *
 *   401 not signed in · 403 cross-origin (stop) · 400 bad input · 404 no such run of yours
 *   (stop: none running) · 503 a store is unreachable
 */

const PRIVATE = { "Cache-Control": "no-store" };

export async function readRunResponse(request: Request, runId: string | undefined): Promise<Response> {
  const who = await signedIn(request);
  if (who instanceof Response) return who;
  if (!isUuid(runId)) return notFound();
  const db = await database();
  if (db instanceof Response) return db;
  let run;
  try {
    run = await getRun(db, runId);
  } catch (error) {
    logBackendFault("postgres", "reading a reply run", error);
    return unavailable();
  }
  if (!run || run.uid !== who.user.uid) return notFound();
  return createUIMessageStreamResponse({
    stream: readRun(db, run, request.signal),
    headers: { "Cache-Control": "no-store, no-transform" },
  });
}

export async function stopRunResponse(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return json({ error: "Cross-origin requests are refused." }, { status: 403 });
  const who = await signedIn(request);
  if (who instanceof Response) return who;
  let body: unknown;
  try {
    const bytes = await readCapped(request, BODY_LIMITS.small);
    if (!bytes) return bodyTooLarge(BODY_LIMITS.small);
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return json({ error: "The request body must be JSON." }, { status: 400 });
  }
  const { messageId, runId } = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const where = isUuid(runId) ? { runId } : isUuid(messageId) ? { userMessageId: messageId } : null;
  if (!where) return json({ error: "Name the reply to stop: a messageId or a runId (UUIDs)." }, { status: 400 });
  const db = await database();
  if (db instanceof Response) return db;
  try {
    if (!(await stopRun(db, who.user.uid, where)))
      return json({ error: "No reply of yours is being written for that message." }, { status: 404, headers: PRIVATE });
  } catch (error) {
    logBackendFault("postgres", "stopping a reply run", error);
    return unavailable();
  }
  return json({ stopped: true }, { headers: PRIVATE });
}

const signedIn = apiSignedIn;
const database = () => apiDatabase("a reply run", unavailable);

const notFound = () => json({ error: "There is no such reply of yours." }, { status: 404, headers: PRIVATE });
const unavailable = () =>
  json({ error: "Conversations can't be reached right now. Please try again shortly." }, { status: 503 });
