import { json } from "@remix-run/node";
import { createUIMessageStreamResponse } from "ai";
import { isSameOrigin } from "~/auth/request.server";
import { getSessionUser, sessionHeaders, type SignedIn } from "~/auth/session.server";
import { getConfig } from "~/config.server";
import { findOrCreateConversation, type ConversationRow } from "~/data/conversations.server";
import { getConversationWithMessages, listMessages, toChatMessage } from "~/data/messages.server";
import { getCustomInstructions, getEnabledToolIds } from "~/data/preferences.server";
import { dailyLimitFor, refundMessage, reserveMessage, type Reservation } from "~/data/quotas.server";
import { getDb, type Db } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { getModelRegistry, modelsForRole, type ModelOption, type ModelRegistry } from "~/llm/models.server";
import { buildTools } from "~/llm/tools.server";
import { MAX_CHAT_BODY_BYTES, parseChatRequest, type ChatRequest } from "./chat-request";
import { HistoryError, historyForReply, trimHistory } from "./history";
import { quotaExhaustedMessage } from "./quota-text";
import { startReply, type ReplyPlan } from "./reply.server";
import { systemPrompt } from "./system-prompt";
import { titleFromExchange } from "./title";

/**
 * POST /api/chat: one message in, one streamed reply out (AI SDK UI message
 * stream over server-sent events).
 *
 *   403 cross-origin · 401 not signed in · 413 body too large · 400 invalid input (nothing stored)
 *   404 no such conversation for this user · 409 out of date with the stored conversation
 *   429 daily quota used up (with the reset time) · 503 a store is unreachable
 */

/** Roughly what fits a small model's context window; older messages are left out first. */
const HISTORY_CHARACTER_BUDGET = 100_000;

type Refusal = { status: 400 | 404 | 409; error: string };

function refuse(status: number, error: string, headers?: HeadersInit) {
  return json({ error }, { status, headers });
}

export async function handleChatRequest(request: Request): Promise<Response> {
  // A message is sent in the signed-in user's name (and uses their quota): another site must not send one.
  if (!isSameOrigin(request)) return refuse(403, "Cross-origin requests are refused.");
  const session = await getSessionUser(request);
  // Degraded: the role (quota, models) or the revocation state could not be
  // read; answering with a guessed role could refuse or allow the wrong things.
  if (session.status !== "signed-in" || session.degraded) {
    return session.degraded
      ? refuse(503, "Sign-in can't be checked right now. Please try again shortly.")
      : refuse(401, "Please sign in to chat.", sessionHeaders(session));
  }

  const body = await readJsonBody(request);
  if (!body.ok) return refuse(body.status, body.error);
  const parsed = parseChatRequest(body.value);
  if (!parsed.ok) return refuse(400, parsed.error);
  const input = parsed.request;

  const registry = await getModelRegistry();
  const allowed = modelsForRole(registry, session);
  const model = allowed.find((option) => option.id === input.model);
  if (!model) {
    const names = allowed.map((option) => option.label).join(", ");
    return refuse(
      400,
      `The model "${input.model}" isn't available to you.${names ? ` Choose one of: ${names}.` : " No model is available for your plan."}`,
    );
  }

  let db: Db;
  try {
    db = await getDb();
  } catch (error) {
    logBackendFault("postgres", "opening the database for a chat", error);
    return refuse(503, "Conversations can't be reached right now. Please try again shortly.");
  }

  // The quota is counted while the conversation loads and the model request
  // starts; the answer is awaited before anything is shown.
  const reservation = reserveMessage(db, session.user.uid, dailyLimitFor(session), { messageId: input.message.id });
  reservation.catch(() => undefined);

  let plan: ReplyPlan | Refusal;
  try {
    plan = await planReply(db, session, input, model, registry);
  } catch (error) {
    logBackendFault("postgres", "loading a conversation for a chat", error);
    await settle(db, session, reservation);
    return refuse(503, "Conversations can't be reached right now. Please try again shortly.");
  }
  if ("error" in plan) {
    await settle(db, session, reservation);
    return refuse(plan.status, plan.error);
  }

  const pending = startReply(db, plan, request.signal);
  let quota: Reservation;
  try {
    quota = await reservation;
  } catch (error) {
    pending.cancel();
    logBackendFault("postgres", "counting a message against the quota", error);
    return refuse(503, "Your quota can't be checked right now. Please try again shortly.");
  }
  if (!quota.allowed) {
    pending.cancel();
    const retryAfter = Math.max(1, Math.ceil((quota.resetsAt.getTime() - Date.now()) / 1000));
    return json(
      { error: quotaExhaustedMessage(quota.limit ?? 0, quota.resetsAt), resetsAt: quota.resetsAt.toISOString(), limit: quota.limit },
      { status: 429, headers: { "Retry-After": String(retryAfter) } },
    );
  }

  return createUIMessageStreamResponse({
    stream: pending.stream(quota),
    headers: {
      // remix-serve compresses responses; no-transform keeps it from buffering the stream.
      "Cache-Control": "no-store, no-transform",
    },
  });
}

/** A refused request gives back the message it reserved. */
async function settle(db: Db, session: SignedIn, reservation: Promise<Reservation>) {
  const quota = await reservation.catch(() => null);
  if (quota?.allowed) {
    await refundMessage(db, quota).catch((error: unknown) =>
      logBackendFault("postgres", "giving back a quota reservation", error),
    );
  }
}

async function readJsonBody(
  request: Request,
): Promise<{ ok: true; value: unknown } | { ok: false; status: 400 | 413; error: string }> {
  const tooLarge = { ok: false as const, status: 413 as const, error: "The request is too large." };
  if (Number(request.headers.get("Content-Length") ?? 0) > MAX_CHAT_BODY_BYTES) return tooLarge;
  let text: string;
  try {
    text = await request.text();
  } catch {
    return { ok: false, status: 400, error: "The request body could not be read." };
  }
  if (Buffer.byteLength(text) > MAX_CHAT_BODY_BYTES) return tooLarge;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, status: 400, error: "The request body must be JSON." };
  }
}

async function planReply(
  db: Db,
  session: SignedIn,
  input: ChatRequest,
  model: ModelOption,
  registry: ModelRegistry,
): Promise<ReplyPlan | Refusal> {
  const uid = session.user.uid;
  const [found, enabledToolIds, customInstructions] = await Promise.all([
    getConversationWithMessages(db, uid, input.conversationId),
    getEnabledToolIds(db, uid),
    input.create ? getCustomInstructions(db, uid) : Promise.resolve(null),
  ]);

  let conversation: ConversationRow | null = found?.conversation ?? null;
  let storedRows = found?.messages ?? [];
  if (!conversation && input.create) {
    const made = await findOrCreateConversation(db, {
      id: input.conversationId,
      uid,
      customInstructions,
      model: model.id,
    });
    conversation = made?.conversation ?? null;
    // Made by a concurrent request of this user after our first read: read its messages again.
    if (made && !made.created) storedRows = await listMessages(db, made.conversation.id);
  }
  if (!conversation) return { status: 404, error: "This conversation doesn't exist." };

  const user = { id: input.message.id, text: input.message.parts[0].text };
  let reply;
  try {
    reply = historyForReply(storedRows.map(toChatMessage), user);
  } catch (error) {
    if (error instanceof HistoryError) return { status: 409, error: error.message };
    throw error;
  }

  return {
    uid,
    conversationId: conversation.id,
    kind: reply.kind,
    user: { ...user, sentAt: new Date() },
    history: trimHistory(reply.history, HISTORY_CHARACTER_BUDGET),
    system: systemPrompt({
      conversationPrompt: conversation.systemPrompt,
      customInstructions: conversation.customInstructions,
    }),
    model: { id: model.id, demo: model.demo },
    languageModel: registry.languageModel(model.id),
    tools: buildTools({ enabledIds: enabledToolIds, timeZone: input.timeZone }),
    timeoutMs: getConfig().llm.timeoutMs,
    title: titleFromExchange(user.text),
  };
}
