import { json } from "@remix-run/node";
import { createUIMessageStreamResponse } from "ai";
import { isSameOrigin } from "~/auth/request.server";
import {
  getSessionUser,
  peekSession,
  sessionHeaders,
  type SessionPeek,
  type SessionState,
  type SignedIn,
} from "~/auth/session.server";
import {
  dailyLimitFor,
  largestMessageMaxChars,
  messageMaxCharsFor,
  reserveMessage,
  type Reservation,
} from "~/data/quotas.server";
import { getDb, type Db } from "~/db/client.server";
import { readCapped } from "~/http/body-limit.server";
import { AdmissionLimit, admissionRefusal } from "~/http/admission.server";
import { getConfig } from "~/config.server";
import { logBackendFault } from "~/deadline.server";
import { getModelRegistry, modelsForRole, type ModelOption, type ModelRegistry } from "~/llm/models.server";
import { countRefusal } from "~/metrics/metrics.server";
import { chatBodyBytes, messageTooLongText } from "~/settings/chat-limits";
import { parseChatRequest, type ChatRequest } from "~/conversation/chat-request";
import { checkChatRateLimit } from "./chat-rate-limit.server";
import { unknownToolProblem } from "./chat-tools.server";
import { quotaExhaustedMessage } from "~/budgets/quota-text";
import { loadChatContext, type ChatContext } from "~/data/chat-context.server";
import { getPromptTool } from "~/data/prompt-tools/prompt-tools.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import { planReply, type ChatTool, type Refusal } from "./reply-plan.server";
import { giveBack, startReply, type PendingReply } from "./reply.server";
import { isDraining } from "./runs/runs.server";
import { LocalRun } from "./runs/local-run.server";
import { checkAttachments } from "~/attachments/message-attachments.server";
import type { AttachmentRef } from "~/conversation/attachment-types";
import { findAttachments, type AttachmentRow } from "~/data/attachments.server";
import { budgetLimitsFor, fallbackModelFor } from "~/data/budgets.server";
import { applyBudget, type BudgetRefusal } from "./reply-budget.server";
import { recordRefusal } from "~/data/refusals.server";
import { roleKey } from "~/settings/role-settings";
import { memoryAllowedBy } from "~/data/memory-access.server";

/**
 * POST /api/chat: one message in, one streamed reply out (AI SDK UI message
 * stream over server-sent events).
 *
 *   403 cross-origin · 401 not signed in · 413 body too large · 400 invalid input (nothing stored)
 *   401 also for an account deleted while the request was on its way
 *   404 no such conversation for this user · 409 out of date with the stored conversation,
 *   a message id already used by another message, or one already being answered
 *   429 too many messages a minute, or the daily quota used up (with the reset time)
 *   503 a store is unreachable, or this instance is shutting down, or it is admitting as many sends
 *   as it may at once (CHAT_ADMISSION_LIMIT; at once, with Retry-After, docs/decisions/096)
 *
 * Time to the first token is the model's own plus as little as possible
 * (docs/decisions/033): the fresh session check and the conversation's read
 * start at once; when this instance's caches already know the session, so
 * does the counting of the message (rate limit, quota), and once both have
 * said yes the model request — never for a send the counters refuse.
 * A new chat's conversation is written only with its first exchange, when the
 * reply ends (saveExchange): a refused or failed first send leaves no empty chat.
 * Nothing reaches the browser before every check has said yes: a refusal
 * cancels the model request before any token is shown and gives the quota
 * reservation back.
 */
export async function handleChatRequest(request: Request): Promise<Response> {
  const refused = refusedWithoutBackends(request);
  if (refused) return refused;
  // Before any backend call (docs/decisions/096): a send over the instance's limit is refused at once.
  const slot = sendsBeingAdmitted.tryEnter();
  if (!slot) return admissionRefusal(BUSY);
  let answer: LocalRun | Response | undefined;
  try {
    answer = await answerSend(request);
    return answer instanceof LocalRun ? streamRun(answer) : answer;
  } finally {
    // A send's admission ends once its reply's run is recorded: streaming from the model, a reply holds
    // no database connection between its batches (docs/decisions/096). A refused or failed send ends it now.
    if (answer instanceof LocalRun) slot.releaseAfter(answer.recorded, longestRecordMs());
    else slot.release();
  }
}

/** The most recording a run can take: the pool's wait for a connection, then its query (app/db/client.server.ts). */
function longestRecordMs(): number {
  return 2 * Math.max(getConfig().backendTimeoutMs, 5_000);
}

/** Sends being admitted on this instance (CHAT_ADMISSION_LIMIT). */
const sendsBeingAdmitted = new AdmissionLimit("chat_admission", () => getConfig().admission.chatSends);
export const BUSY =
  "The assistant is busy with many messages right now, and yours wasn't sent. Please try again in a moment.";

/** The refusals that need no store: another site, or this instance shutting down. */
function refusedWithoutBackends(request: Request): Response | undefined {
  // A message is sent in the signed-in user's name (and uses their quota): another site must not send one.
  if (!isSameOrigin(request)) return refuse(403, "Cross-origin requests are refused.");
  // Shutting down (SIGTERM): the running replies finish here, new ones start on another instance.
  if (isDraining()) return refuse(503, SHUTTING_DOWN, { "Retry-After": "1", Connection: "close" });
  return undefined;
}

/** Every check, then the reply's run; or the refusal, with whatever the send began taken back. */
async function answerSend(request: Request): Promise<LocalRun | Response> {
  const admitted = await admit(request);
  if (admitted instanceof Response) return admitted;
  const send = new ChatSend(admitted);
  const confirmed = await send.confirmSender();
  if (confirmed instanceof Response) return send.withdraw(confirmed);
  const counted = await send.count(confirmed.session);
  if (!counted.ok) return send.withdraw(counted.refusal);
  const started = await send.startModel(confirmed);
  if (started instanceof Response) return send.withdraw(started);
  return started.pending.run(counted.quota);
}

/** From here the reply goes on without this request (docs/decisions/070); this response is one of its readers. */
function streamRun(run: LocalRun): Response {
  return createUIMessageStreamResponse({
    stream: run.read(),
    headers: {
      // remix-serve compresses responses; no-transform keeps it from buffering the stream.
      "Cache-Control": "no-store, no-transform",
    },
  });
}

/** A request past the checks that need no store: same origin, a session cookie, a valid body, the database. */
interface Admitted {
  request: Request;
  peek: SessionPeek;
  /** The fresh session check, running. */
  sessionCheck: Promise<SessionState>;
  input: ChatRequest;
  registry: ModelRegistry;
  db: Db;
}

async function admit(request: Request): Promise<Admitted | Response> {
  const peek = await peekSession(request);
  const sessionCheck = getSessionUser(request);
  if (!peek) return sessionRefusal(await sessionCheck) ?? refuse(401, "Please log in to chat.");

  // Read up to what the longest message any role may send needs; the sender's own cap is checked later.
  const largest = largestMessageMaxChars();
  const body = await readJsonBody(request, chatBodyBytes(largest));
  if (!body.ok) return refuse(body.status, body.error);
  const parsed = parseChatRequest(body.value, largest);
  if (!parsed.ok) return refuse(400, parsed.error);
  const unknownTool = unknownToolProblem(parsed.request.toolsOff);
  if (unknownTool) return refuse(400, unknownTool);
  const registry = await getModelRegistry();

  try {
    return { request, peek, sessionCheck, input: parsed.request, registry, db: await getDb() };
  } catch (error) {
    logBackendFault("postgres", "opening the database for a chat", error);
    return refuse(503, "Conversations can't be reached right now. Please try again shortly.");
  }
}

/** The sender as the fresh check confirmed them, the model they may use, and their checked files. */
interface Confirmed {
  session: SignedIn;
  model: ModelOption;
  files: AttachmentRef[];
}

/**
 * One message on its way to a reply. Made as soon as the request is
 * admitted, it starts the reads on the account the cookie names and, when
 * the caches know the session, the counting and the model request; each
 * later step confirms or redoes that work for the sender the fresh check
 * returns. Whatever it began is taken back by withdraw().
 */
class ChatSend {
  private readonly uid: string;
  private readonly messageId: string;
  private readonly length: number;
  private readonly context: Promise<ChatContext>;
  private readonly attachmentIds: string[];
  private readonly attached: Promise<AttachmentRow[]> | undefined;
  private readonly tool: Promise<Awaited<ReturnType<typeof loadTool>> | undefined>;
  private rateLimit: ReturnType<typeof checkChatRateLimit> | undefined;
  private reservation: Promise<Reservation> | undefined;
  private limits: ReturnType<typeof checkLimits> | undefined;
  private started: Promise<Started | undefined> | undefined;

  constructor(private readonly admitted: Admitted) {
    const { db, input, peek, registry, request } = admitted;
    // Reads only, on the account the cookie names; shown to no one before the session is confirmed.
    this.uid = peek.uid;
    this.messageId = input.message.id;
    this.length = input.message.parts[0].text.length;
    this.context = quiet(
      loadChatContext(db, this.uid, input.conversationId, {
        id: this.messageId,
        text: input.message.parts[0].text,
        temporary: input.create === true && input.temporary === true,
        projectId: input.create ? input.projectId : undefined,
      }),
    );
    this.attachmentIds = [...new Set(input.attachments ?? [])];
    this.attached =
      this.attachmentIds.length > 0 ? quiet(findAttachments(db, this.uid, this.attachmentIds)) : undefined;
    // A prompt tool's chat: its instructions go with the first exchange (read only for a new chat).
    this.tool = input.toolId && input.create ? quiet(loadTool(db, input.toolId)) : Promise.resolve(undefined);
    // When the caches know the session, the message is counted on it at once (the rate limit, and
    // the quota's claim of this message id), while the fresh check and the read run. The model
    // request starts only once both counters have said yes: a send refused
    // for the quota or the rate limit never reaches the model (docs/decisions/033).
    const cached = peek.cached;
    if (!cached) return;
    this.rateLimit = quiet(checkChatRateLimit(db, cached, request));
    this.reservation = quiet(reserveMessage(db, this.uid, dailyLimitFor(cached), { messageId: this.messageId }));
    const limits = quiet(checkLimits(db, this.rateLimit, this.reservation));
    this.limits = limits;
    // Not started early for a message over the cached role's cap (refused once the role is confirmed),
    // nor with files: the model request waits for them to be checked.
    const early = this.length <= messageMaxCharsFor(cached) ? pickModel(registry, cached, input.model) : undefined;
    if (!early || this.attached) return;
    this.started = quiet(
      limits.then(async (counted) =>
        counted.ok
          ? begin(db, cached, await this.context, input, early, registry, request, usable(await this.tool, cached))
          : undefined,
      ),
    );
  }

  /** A refused message takes back all it began: no token shown, no quota used. */
  async withdraw(response: Response): Promise<Response> {
    cancel(this.started);
    if (this.reservation) await settle(this.admitted.db, this.reservation);
    return response;
  }

  /** The fresh session check, then what the confirmed role allows: the message's length, the model, the files. */
  async confirmSender(): Promise<Confirmed | Response> {
    const { input, peek, registry, sessionCheck } = this.admitted;
    const session = await sessionCheck;
    const refusal = sessionRefusal(session);
    if (refusal || session.status !== "signed-in") return refusal ?? refuse(401, "Please log in to chat.");
    const cached = peek.cached;
    if (
      cached &&
      (cached.isAdmin !== session.isAdmin ||
        roleKey(cached) !== roleKey(session) ||
        budgetRuleOf(cached) !== budgetRuleOf(session))
    ) {
      // Started early for an admin who no longer is, or another role (its tool servers must not
      // slip through), or under another role's budgets: planned again for the confirmed role.
      cancel(this.started);
      this.started = undefined;
    }
    const maxChars = messageMaxCharsFor(session);
    if (this.length > maxChars) return refuse(400, messageTooLongText(this.length, maxChars));
    const model = pickModel(registry, session, input.model);
    if (!model) {
      const names = modelsForRole(registry, session)
        .map((option) => option.label)
        .join(", ");
      return refuse(
        400,
        `The model "${input.model}" isn't available to you.${names ? ` Choose one of: ${names}.` : " No model is available for your plan."}`,
      );
    }
    const files = await this.checkedFiles(session, model);
    return files instanceof Response ? files : { session, model, files };
  }

  private async checkedFiles(session: SignedIn, model: ModelOption): Promise<AttachmentRef[] | Response> {
    if (!this.attached) return [];
    const { registry } = this.admitted;
    let checked;
    try {
      const visionModels = modelsForRole(registry, session).filter((option) => option.vision);
      checked = checkAttachments(this.attachmentIds, await this.attached, {
        messageId: this.messageId,
        model,
        session,
        visionModels,
      });
    } catch (error) {
      logBackendFault("postgres", "reading a message's attachments", error);
      return refuse(503, "Your files can't be reached right now. Please try again shortly.");
    }
    return checked.ok ? checked.files : refuse(400, checked.error);
  }

  /** The rate limit's and the quota's answers for the confirmed sender (counted again if their daily limit changed). */
  async count(session: SignedIn): ReturnType<typeof checkLimits> {
    const { db, peek, request } = this.admitted;
    const cached = peek.cached;
    if (this.reservation && cached && dailyLimitFor(cached) !== dailyLimitFor(session)) {
      // The role changed since the caches saw it, and with it the daily limit: count again against the new one.
      await settle(db, this.reservation);
      this.reservation = undefined;
      this.limits = undefined;
    }
    this.rateLimit ??= quiet(checkChatRateLimit(db, session, request));
    this.reservation ??= quiet(reserveMessage(db, this.uid, dailyLimitFor(session), { messageId: this.messageId }));
    this.limits ??= quiet(checkLimits(db, this.rateLimit, this.reservation));
    return this.limits;
  }

  /** Counted and confirmed: the model request, started now unless it started early. */
  async startModel({ session, model, files }: Confirmed): Promise<{ pending: PendingReply } | Response> {
    const { db, input, registry, request } = this.admitted;
    let plan: Started | undefined;
    try {
      const loaded = await this.context;
      plan = this.started ? await this.started : undefined;
      if (!plan) {
        const now = await begin(
          db,
          session,
          loaded,
          input,
          model,
          registry,
          request,
          usable(await this.tool, session),
          files,
        );
        this.started = Promise.resolve(now);
        plan = now;
      }
      if ("refusal" in plan) return refusalResponse(plan.refusal);
    } catch (error) {
      if (isAccountDeleted(error)) return refuse(401, ACCOUNT_DELETED_MESSAGE);
      logBackendFault("postgres", "loading a conversation for a chat", error);
      return refuse(503, "Conversations can't be reached right now. Please try again shortly.");
    }
    return plan && "pending" in plan
      ? plan
      : refuse(503, "Conversations can't be reached right now. Please try again shortly.");
  }
}

const ACCOUNT_DELETED_MESSAGE = "This account has been deleted.";
export const SHUTTING_DOWN = "This server is restarting. Please send your message again in a moment.";
export const MESSAGE_IN_FLIGHT = "This message is already being answered.";

function refuse(status: number, error: string, headers?: HeadersInit) {
  return json({ error }, { status, headers });
}

/**
 * Signed out: 401 (clearing a dead cookie). Degraded — the role (quota,
 * models) or the revocation state could not be read: 503, since answering
 * with a guessed role could refuse or allow the wrong things.
 */
function sessionRefusal(session: SessionState): Response | undefined {
  if (session.status === "signed-in" && !session.degraded) return undefined;
  return session.degraded
    ? refuse(503, "Login can't be checked right now. Please try again shortly.")
    : refuse(401, "Please log in to chat.", sessionHeaders(session));
}

function pickModel(registry: ModelRegistry, session: SignedIn, id: string): ModelOption | undefined {
  return modelsForRole(registry, session).find((option) => option.id === id);
}

type Started = { pending: PendingReply } | { refusal: Refusal | BudgetRefusal };

/**
 * Plans the reply, holds its budget (docs/decisions/072) and starts the model
 * request (nothing is shown until the caller streams it).
 */
async function begin(
  db: Db,
  who: SignedIn,
  context: ChatContext,
  input: ChatRequest,
  model: ModelOption,
  registry: ModelRegistry,
  request: Request,
  tool: ChatTool | NoTool | undefined,
  files: AttachmentRef[] = [],
): Promise<Started> {
  // Only a new chat takes a tool; an existing conversation keeps its own instructions.
  if (tool === NO_TOOL && !context.conversation) return { refusal: { status: 400, error: TOOL_UNAVAILABLE } };
  const chatTool = tool === NO_TOOL ? undefined : tool;
  // The role is stored with the usage: the admin usage page reads spend per plan.
  const role = roleKey(who);
  const email = who.user.email ?? undefined;
  // The admins' memory switch as the context read it for this message (docs/decisions/105).
  const memory = { memoryAllowed: memoryAllowedBy(context.memoryRoleChoices, role) };
  const plan = planReply(who.user.uid, context, input, model, registry, chatTool, files, memory);
  if ("error" in plan) return { refusal: plan };
  const budgeted = await applyBudget(db, { ...plan, role, email }, who, registry, (fallback) => {
    const replanned = planReply(who.user.uid, context, input, fallback, registry, chatTool, files, memory);
    return "error" in replanned ? replanned : { ...replanned, role, email };
  });
  if ("refusal" in budgeted) {
    countRefusal("budget");
    recordRefusal(db, who.user.uid, "budget");
    return budgeted;
  }
  return { pending: startReply(db, budgeted.plan, request.signal) };
}

/** A refusal's answer; a spent budget's says when it resets and what the composer should show. */
function refusalResponse(refusal: Refusal | BudgetRefusal): Response {
  if (refusal.status !== 429) return refuse(refusal.status, refusal.error);
  const retryAfter = Math.max(1, Math.ceil((Date.parse(refusal.resetsAt) - Date.now()) / 1000));
  return json(refusal, { status: 429, headers: { "Retry-After": String(retryAfter) } });
}

/** Which budgets and fallback a role has: a plan made under another's must be made again. */
function budgetRuleOf(who: SignedIn): string {
  return JSON.stringify([budgetLimitsFor(who), fallbackModelFor(who)]);
}

const NO_TOOL = "no-tool";
type NoTool = typeof NO_TOOL;
export const TOOL_UNAVAILABLE = "This tool isn't available any more. Start a new chat, or pick another tool.";

/** The prompt tool a new chat names, if it exists. */
async function loadTool(db: Db, id: string): Promise<(ChatTool & { enabled: boolean }) | NoTool> {
  const found = await getPromptTool(db, id);
  return found ? { name: found.name, systemPrompt: found.systemPrompt, enabled: found.enabled } : NO_TOOL;
}

/** A switched-off tool is gone for everyone but admins, who may still try it (as on its page). */
function usable(tool: Awaited<ReturnType<typeof loadTool>> | undefined, who: SignedIn): ChatTool | NoTool | undefined {
  if (!tool || tool === NO_TOOL) return tool;
  return tool.enabled || who.isAdmin ? tool : NO_TOOL;
}

/** A promise whose rejection is handled where it is awaited, not unhandled meanwhile. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Stops a model request that must not be shown (it may still be starting). */
function cancel(started: Promise<Started | undefined> | undefined) {
  void Promise.resolve(started)
    .then((value) => value && "pending" in value && value.pending.cancel())
    .catch(() => undefined);
}

/** The rate limit's and the quota's answers; a refusal says why in plain words. */
async function checkLimits(
  db: Db,
  rateLimit: ReturnType<typeof checkChatRateLimit>,
  reservation: Promise<Reservation>,
): Promise<{ ok: true; quota: Reservation } | { ok: false; refusal: Response }> {
  let limited: Awaited<typeof rateLimit>;
  let quota: Reservation;
  try {
    [limited, quota] = await Promise.all([rateLimit, reservation]);
  } catch (error) {
    // Deleted while this request was on its way (docs/decisions/045): nothing was counted.
    if (isAccountDeleted(error)) return { ok: false, refusal: refuse(401, ACCOUNT_DELETED_MESSAGE) };
    logBackendFault("postgres", "counting a message against the limits", error);
    return { ok: false, refusal: refuse(503, "Your quota can't be checked right now. Please try again shortly.") };
  }
  if (!limited.allowed) {
    return { ok: false, refusal: refuse(429, limited.message, { "Retry-After": String(limited.retryAfterSeconds) }) };
  }
  if (quota.inFlight) {
    // Another send of this very message is being answered: one message, one reply, one unit (docs/decisions/044).
    return { ok: false, refusal: refuse(409, MESSAGE_IN_FLIGHT) };
  }
  if (!quota.allowed) {
    countRefusal("daily_quota");
    recordRefusal(db, quota.uid, "quota");
    const retryAfter = Math.max(1, Math.ceil((quota.resetsAt.getTime() - Date.now()) / 1000));
    return {
      ok: false,
      refusal: json(
        {
          error: quotaExhaustedMessage(quota.limit ?? 0, quota.resetsAt),
          resetsAt: quota.resetsAt.toISOString(),
          limit: quota.limit,
        },
        { status: 429, headers: { "Retry-After": String(retryAfter) } },
      ),
    };
  }
  return { ok: true, quota };
}

/** A refused request gives back the message it reserved (if the reservation was taken at all). */
async function settle(db: Db, reservation: Promise<Reservation>) {
  const quota = await reservation.catch(() => null);
  if (quota) await giveBack(db, quota);
}

async function readJsonBody(
  request: Request,
  maxBytes: number,
): Promise<{ ok: true; value: unknown } | { ok: false; status: 400 | 413; error: string }> {
  let bytes: Uint8Array | undefined;
  try {
    // Counted while read: a false Content-Length or a chunked body is cut off at the limit.
    bytes = await readCapped(request, maxBytes);
  } catch {
    return { ok: false, status: 400, error: "The request body could not be read." };
  }
  if (!bytes) return { ok: false, status: 413, error: "The request is too large to be a chat message." };
  try {
    return { ok: true, value: JSON.parse(new TextDecoder().decode(bytes)) };
  } catch {
    return { ok: false, status: 400, error: "The request body must be JSON." };
  }
}
