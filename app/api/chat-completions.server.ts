import { randomUUID } from "node:crypto";
import type { SignedIn } from "~/auth/session.server";
import { budgetSpentMessage, budgetTooSmallMessage, toBudgetView } from "~/budgets/budget-text";
import { estimateTextTokens } from "~/budgets/prompt-estimate";
import { checkChatRateLimit } from "~/chat/chat-rate-limit.server";
import { believableUsage, reportedUsageCeiling } from "~/chat/reported-usage";
import { getConfig } from "~/config.server";
import { countKeyUsage } from "~/data/api-keys.server";
import { budgetLimitsFor, fallbackModelFor, holdBudget, priceOf } from "~/data/budgets.server";
import {
  dailyLimitFor,
  HEARTBEAT_MS,
  refundMessage,
  reserveMessage,
  settleMessage,
  touchReservation,
  type Reservation,
} from "~/data/quotas.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import type { Db } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { readCapped } from "~/http/body-limit.server";
import { getModelRegistry, modelsForRole, type ModelOption, type ModelRegistry } from "~/llm/models.server";
import { quotaExhaustedMessage } from "~/budgets/quota-text";
import { costMicroUsd, hasBudget } from "~/settings/budget-settings";
import { parseCompletionRequest, type CompletionRequest } from "./completion-request.server";
import { keyCaller, unavailable, type KeyCaller } from "./key-auth.server";
import { openAIError, openAIJson } from "./openai-errors.server";
import { providerFetch } from "~/llm/provider.server";

/**
 * POST /v1/chat/completions (docs/decisions/099): an OpenAI client's call,
 * decided by the same rules as a message in the chat — the role's models,
 * the per-minute limit, the daily message quota (one call, one message), the
 * budgets held before and settled after with the role's fallback model once
 * one is spent — then passed through to the model provider as it is
 * (streaming or not, tools and images included), with the usage read from
 * its answer and charged to the account and the key.
 *
 *   200 · 400 bad input · 401 no or bad key · 403 no API access for the role or the model
 *   404 unknown model · 413 too large · 429 too fast, quota or budget spent (Retry-After) · 503
 */

/** A request with images in base64 can be large; past this it is refused before it is read whole. */
export const API_BODY_MAX_BYTES = 10 * 1024 * 1024;

export async function chatCompletionsResponse(request: Request): Promise<Response> {
  const caller = await keyCaller(request);
  if (caller instanceof Response) return caller;
  const body = await readJson(request);
  if (body instanceof Response) return countRefused(caller, body);
  const parsed = parseCompletionRequest(body, getConfig().budgets.maxOutputTokens);
  if (!parsed.ok) return countRefused(caller, openAIError(400, parsed.error, { param: parsed.param ?? null }));
  const registry = await getModelRegistry();
  const chosen = chooseModel(registry, caller.who, parsed.request);
  if (chosen instanceof Response) return countRefused(caller, chosen);
  const admitted = await admit(caller, request, parsed.request, chosen, registry);
  if (admitted instanceof Response) return countRefused(caller, admitted);
  return passThrough(caller, parsed.request, { ...admitted, endpoint: registry.endpoint! }, request.signal);
}

export async function readJson(request: Request): Promise<unknown | Response> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readCapped(request, API_BODY_MAX_BYTES);
  } catch {
    return openAIError(400, "The request body could not be read.");
  }
  if (!bytes) return openAIError(413, `The request is too large: at most ${API_BODY_MAX_BYTES / 1024 / 1024} MB.`);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return openAIError(400, "The request body must be JSON.");
  }
}

function chooseModel(registry: ModelRegistry, who: SignedIn, request: CompletionRequest): ModelOption | Response {
  if (!registry.endpoint) {
    return openAIError(503, "No model provider is configured: the built-in demo model answers only in the chat.");
  }
  const model = modelsForRole(registry, who).find((option) => option.id === request.model);
  if (!model) {
    const known = registry.models.some((option) => option.id === request.model);
    return known
      ? openAIError(403, `Your plan does not include the model "${request.model}".`, { param: "model" })
      : openAIError(404, `The model "${request.model}" does not exist.`, { param: "model", code: "model_not_found" });
  }
  if (request.images > 0 && !model.vision) {
    return openAIError(400, `The model "${model.id}" does not take images.`, { param: "messages" });
  }
  return model;
}

/** What a call was allowed: the model (a fallback once a budget is spent), its claim on the quota, the longest reply. */
export interface Admitted {
  model: ModelOption;
  reservation: Reservation;
  maxTokens: number;
}

/** What admitting a call needs to know of it: its prompt's estimate, the reply it wants, its images. */
export type CallShape = Pick<CompletionRequest, "promptTokens" | "maxTokens" | "images">;

interface Passed extends Admitted {
  endpoint: Endpoint;
}

type Endpoint = NonNullable<ModelRegistry["endpoint"]>;

/**
 * The rate limit and the quota's claim at once, then the budget's hold; a
 * refusal gives the claim back. `fallbacks`: where the role's fallback model
 * is looked for once a budget is spent (none for a call no other model can answer).
 */
export async function admit(
  { db, who }: KeyCaller,
  http: Request,
  request: CallShape,
  model: ModelOption,
  fallbacks: Pick<ModelRegistry, "models"> | undefined,
): Promise<Admitted | Response> {
  const [limitedOrNot, claimed] = await Promise.allSettled([
    checkChatRateLimit(db, who, http),
    reserveMessage(db, who.user.uid, dailyLimitFor(who), { messageId: randomUUID() }),
  ]);
  if (limitedOrNot.status === "rejected" || claimed.status === "rejected") {
    // One failed: the other's claim on the quota, if it made one, is given back (else a busy database costs a message).
    if (claimed.status === "fulfilled" && claimed.value.allowed)
      await refundMessage(db, claimed.value).catch(() => undefined);
    const error = limitedOrNot.status === "rejected" ? limitedOrNot.reason : (claimed as PromiseRejectedResult).reason;
    if (isAccountDeleted(error)) return openAIError(401, "Incorrect API key provided.", { code: "invalid_api_key" });
    logBackendFault("postgres", "counting an API call against the limits", error);
    return unavailable();
  }
  const [limited, reservation] = [limitedOrNot.value, claimed.value];
  const refusal = limitRefusal(limited, reservation);
  if (refusal) {
    if (reservation.allowed) await refundMessage(db, reservation).catch(() => undefined);
    return refusal;
  }
  const held = await holdFor(db, who, request, model, fallbacks, reservation);
  if (held instanceof Response) await refundMessage(db, reservation).catch(() => undefined);
  return held;
}

function limitRefusal(
  limited: Awaited<ReturnType<typeof checkChatRateLimit>>,
  quota: Reservation,
): Response | undefined {
  if (!limited.allowed) {
    return openAIError(429, limited.message, { headers: { "Retry-After": String(limited.retryAfterSeconds) } });
  }
  if (quota.allowed) return undefined;
  const retryAfter = Math.max(1, Math.ceil((quota.resetsAt.getTime() - Date.now()) / 1000));
  return openAIError(429, quotaExhaustedMessage(quota.limit ?? 0, quota.resetsAt), {
    type: "insufficient_quota",
    code: "insufficient_quota",
    headers: { "Retry-After": String(retryAfter) },
  });
}

/** The budget step (docs/decisions/072): held on the quota's claim, or the role's fallback model, or refused. */
async function holdFor(
  db: Db,
  who: SignedIn,
  request: CallShape,
  model: ModelOption,
  fallbacks: Pick<ModelRegistry, "models"> | undefined,
  reservation: Reservation,
): Promise<Admitted | Response> {
  const wanted = request.maxTokens ?? getConfig().budgets.maxOutputTokens;
  const limits = budgetLimitsFor(who);
  if (!hasBudget(limits)) return { model, reservation, maxTokens: wanted };
  let hold: Awaited<ReturnType<typeof holdBudget>>;
  try {
    hold = await holdBudget(db, {
      uid: who.user.uid,
      messageId: reservation.messageId,
      limits,
      price: priceOf(model.id),
      promptTokens: request.promptTokens,
      maxOutputTokens: wanted,
    });
  } catch (error) {
    logBackendFault("postgres", "holding a budget for an API call", error);
    return unavailable();
  }
  if (hold.ok) return { model, reservation, maxTokens: hold.maxOutputTokens };
  const fallback = fallbacks?.models.find((option) => option.id === fallbackModelFor(who) && option.id !== model.id);
  if (fallback && (request.images === 0 || fallback.vision)) return { model: fallback, reservation, maxTokens: wanted };
  const spent = hold.status.lines.find((entry) => entry.left <= 0);
  const line = spent ?? hold.status.lines[0];
  const view = toBudgetView(hold.status);
  const retryAfter = Math.max(1, Math.ceil((Date.parse(line.resetsAt) - Date.now()) / 1000));
  return openAIError(429, spent ? budgetSpentMessage(spent) : budgetTooSmallMessage(line), {
    type: "insufficient_quota",
    code: view ? "budget_spent" : "insufficient_quota",
    headers: { "Retry-After": String(retryAfter) },
  });
}

/** A refused call is still a request through the key (what it spent: nothing). */
export async function countRefused(caller: KeyCaller, refusal: Response): Promise<Response> {
  await countKeyUsage(caller.db, caller.keyId, { inputTokens: 0, outputTokens: 0, costMicroUsd: 0 }).catch((error) =>
    logBackendFault("postgres", "counting an API key's call", error),
  );
  return refusal;
}

interface Reported {
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  text: number;
}

/** Passes the call to the provider and its answer back; the usage it reports settles the claim and the key. */
async function passThrough(
  caller: KeyCaller,
  request: CompletionRequest,
  admitted: Passed,
  signal: AbortSignal,
): Promise<Response> {
  const { db, keyId } = caller;
  const { reservation, model } = admitted;
  const heartbeat = setInterval(() => void touchReservation(db, reservation).catch(() => undefined), HEARTBEAT_MS);
  heartbeat.unref();
  const reported: Reported = { text: 0 };
  let settled = false;
  const settle = async (answered: boolean) => {
    if (settled) return;
    settled = true;
    clearInterval(heartbeat);
    await settleCall(db, { keyId, reservation, model, request, admitted, reported, answered }).catch((error) =>
      logBackendFault("postgres", "settling an API call", error),
    );
  };
  let upstream: Response;
  try {
    upstream = await callProvider(request, admitted, signal);
  } catch (error) {
    await settle(false);
    if (signal.aborted) return openAIError(499, "The request was cancelled.");
    logBackendFault("model", `an API call to ${model.id}`, error);
    return openAIError(502, "The model provider could not be reached. Please try again shortly.");
  }
  if (!upstream.ok || !upstream.body) {
    await settle(false);
    return providerRefusal(upstream);
  }
  if (!request.stream) {
    const answer = (await upstream.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!answer) {
      await settle(false);
      return openAIError(502, "The model provider's answer was not valid JSON.");
    }
    reported.usage = answer.usage as Reported["usage"];
    reported.text = estimateTextTokens(JSON.stringify(answer.choices ?? []));
    await settle(true);
    return openAIJson(answer);
  }
  return new Response(
    relay(upstream.body, reported, () => settle(true)),
    {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        // remix-serve compresses responses; no-transform keeps it from buffering the stream.
        "Cache-Control": "no-store, no-transform",
      },
    },
  );
}

/** The provider's answer to the call; the deadline is for the answer's start, then a stream runs as long as the model writes. */
async function callProvider(request: CompletionRequest, { model, maxTokens, endpoint }: Passed, signal: AbortSignal) {
  const { baseURL, apiKey } = endpoint;
  const body = {
    ...request.passOn,
    model: model.id,
    max_tokens: maxTokens,
    ...(request.stream ? { stream_options: { include_usage: true } } : {}),
  };
  const late = new AbortController();
  const timer = setTimeout(() => late.abort(new Error("the model did not answer in time")), getConfig().llm.timeoutMs);
  try {
    return await providerFetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      // The caller going away stops the model too: nobody would read the rest.
      signal: AbortSignal.any([signal, late.signal]),
    });
  } finally {
    clearTimeout(timer);
  }
}

/** The provider's refusal, in OpenAI's shape with our words (its own may name its account or keys). */
function providerRefusal(upstream: Response): Response {
  void upstream.body?.cancel().catch(() => undefined);
  if (upstream.status === 429) return openAIError(503, "The model provider is busy. Please try again shortly.");
  if (upstream.status === 400) return openAIError(400, "The model provider refused the request as invalid.");
  return openAIError(502, `The model provider answered HTTP ${upstream.status}.`);
}

function readEvent(line: string, reported: Reported) {
  if (!line.startsWith("data:")) return;
  const data = line.slice(5).trim();
  if (data === "" || data === "[DONE]") return;
  try {
    const event = JSON.parse(data) as { usage?: Reported["usage"]; choices?: unknown[] };
    if (event.usage) reported.usage = event.usage;
    if (event.choices) reported.text += estimateTextTokens(JSON.stringify(event.choices));
  } catch {
    // Not JSON: passed on as it is, and counted by nobody.
  }
}

/**
 * The provider's stream passed on as it comes, each server-sent event read on
 * the way for the usage it reports at the end and the text's length; `end`
 * runs once it is read to its end, fails or the caller goes away. Read by
 * hand rather than piped: under remix-serve the provider's body and this
 * stream come from different stream implementations, which cannot be piped.
 */
function relay(
  body: ReadableStream<Uint8Array>,
  reported: Reported,
  end: () => Promise<void>,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  const readLines = (text: string) => {
    pending += text;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) readEvent(line, reported);
  };
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          readLines(decoder.decode());
          readEvent(pending, reported);
          await end();
          controller.close();
          return;
        }
        readLines(decoder.decode(value, { stream: true }));
        controller.enqueue(value);
      } catch (error) {
        await end();
        controller.error(error);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason).catch(() => undefined);
      await end();
    },
  });
}

interface Settlement {
  keyId: string;
  reservation: Reservation;
  model: ModelOption;
  request: CompletionRequest;
  admitted: Admitted;
  reported: Reported;
  /** The provider answered: the call is spent even if its usage is not believable (then estimated). */
  answered: boolean;
}

/** Charges the account and the key: the usage the provider reported when believable, else the app's estimate. */
async function settleCall(db: Db, { keyId, reservation, model, request, admitted, reported, answered }: Settlement) {
  if (!answered) {
    await refundMessage(db, reservation);
    await countKeyUsage(db, keyId, { inputTokens: 0, outputTokens: 0, costMicroUsd: 0 });
    return;
  }
  const ceiling = reportedUsageCeiling(request.promptTokens, admitted.maxTokens);
  // A stream cut short reports nothing: the estimate is charged then, as for a count beyond belief.
  const believed =
    reported.usage &&
    believableUsage(
      { inputTokens: reported.usage.prompt_tokens, outputTokens: reported.usage.completion_tokens },
      ceiling,
    );
  const usage = believed || { inputTokens: request.promptTokens, outputTokens: reported.text };
  const spent = { ...usage, costMicroUsd: costMicroUsd(priceOf(model.id), usage.inputTokens, usage.outputTokens) };
  await settleMessage(db, reservation, spent);
  await countKeyUsage(db, keyId, spent);
}
