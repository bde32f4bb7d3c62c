import { believableUsage, reportedUsageCeiling } from "~/chat/reported-usage";
import { getConfig } from "~/config.server";
import { countKeyUsage } from "~/data/api-keys.server";
import { MIN_REPLY_TOKENS, priceOf } from "~/data/budgets.server";
import { refundMessage, settleMessage } from "~/data/quotas.server";
import { logBackendFault } from "~/deadline.server";
import type { ModelOption } from "~/llm/models.server";
import { costMicroUsd } from "~/settings/budget-settings";
import { admit, countRefused, readJson, type Admitted } from "./chat-completions.server";
import { parseEmbeddingsRequest, type EmbeddingsRequest } from "./embeddings-request.server";
import { keyCaller, type KeyCaller } from "./key-auth.server";
import { openAIError, openAIJson } from "./openai-errors.server";
import { providerFetch } from "~/llm/provider.server";

/**
 * POST /v1/embeddings (docs/decisions/099, docs/api.md): the embeddings model
 * the app already uses for attachments (LLM_EMBEDDING_MODEL at LLM_BASE_URL),
 * under the same rules as a chat completion — the key, the role's API access,
 * the per-minute limit, one message of the daily quota, the budgets held and
 * settled at the model's price (LLM_MODEL_PRICES) — passed to the provider as
 * sent (`dimensions` too: a provider that does not take it refuses, 400).
 *
 *   200 · 400 bad input · 401 · 403 · 404 no such model, or no embeddings model · 413 · 429 · 502 · 503
 */

/** The embeddings model offered, if one is configured (GET /v1/models lists it). */
export function embeddingsModel(): ModelOption | undefined {
  const { baseURL, embeddingModel } = getConfig().llm;
  if (!baseURL || !embeddingModel) return undefined;
  return { id: embeddingModel, label: embeddingModel, demo: false, vision: false };
}

export async function embeddingsResponse(request: Request): Promise<Response> {
  const caller = await keyCaller(request);
  if (caller instanceof Response) return caller;
  const body = await readJson(request);
  if (body instanceof Response) return countRefused(caller, body);
  const parsed = parseEmbeddingsRequest(body);
  if (!parsed.ok) return countRefused(caller, openAIError(400, parsed.error, { param: parsed.param ?? null }));
  const model = embeddingsModel();
  if (!model || model.id !== parsed.request.model)
    return countRefused(caller, modelNotFound(parsed.request.model, model));
  // An embedding writes no reply; the hold is the smallest one a budget grants (MIN_REPLY_TOKENS), settled at 0.
  const call = { promptTokens: parsed.request.promptTokens, maxTokens: MIN_REPLY_TOKENS, images: 0 };
  const admitted = await admit(caller, request, call, model, undefined);
  if (admitted instanceof Response) return countRefused(caller, admitted);
  return embed(caller, parsed.request, admitted, request.signal);
}

function modelNotFound(wanted: string, offered: ModelOption | undefined): Response {
  const message = offered
    ? `The model "${wanted}" does not exist or is not an embeddings model: use "${offered.id}".`
    : "No embeddings model is configured on this server.";
  return openAIError(404, message, { param: "model", code: "model_not_found" });
}

interface EmbeddingsAnswer {
  data?: unknown;
  usage?: { prompt_tokens?: number };
  [field: string]: unknown;
}

async function embed(
  caller: KeyCaller,
  request: EmbeddingsRequest,
  admitted: Admitted,
  signal: AbortSignal,
): Promise<Response> {
  let answer: EmbeddingsAnswer | Response;
  try {
    answer = await askProvider(request, admitted.model, signal);
  } catch (error) {
    await settle(caller, admitted, request, undefined);
    if (signal.aborted) return openAIError(499, "The request was cancelled.");
    logBackendFault("model", `an embeddings call to ${admitted.model.id}`, error);
    return openAIError(502, "The model provider could not be reached. Please try again shortly.");
  }
  if (answer instanceof Response) {
    await settle(caller, admitted, request, undefined);
    return answer;
  }
  const charged = await settle(caller, admitted, request, answer);
  return openAIJson({
    object: "list",
    data: answer.data,
    model: admitted.model.id,
    usage: { prompt_tokens: charged, total_tokens: charged },
  });
}

/** The provider's answer, or its refusal in OpenAI's shape with our words (its own may name its account). */
async function askProvider(
  request: EmbeddingsRequest,
  model: ModelOption,
  signal: AbortSignal,
): Promise<EmbeddingsAnswer | Response> {
  const { baseURL, apiKey, timeoutMs } = getConfig().llm;
  const upstream = await providerFetch(`${baseURL}/embeddings`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) },
    body: JSON.stringify({ ...request.passOn, model: model.id }),
    signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
  });
  const answer = (await upstream.json().catch(() => undefined)) as EmbeddingsAnswer | undefined;
  if (upstream.status === 400) {
    const message = request.passOn.dimensions
      ? "The model provider refused the request as invalid: its embeddings model may not take `dimensions`."
      : "The model provider refused the request as invalid.";
    return openAIError(400, message, { param: request.passOn.dimensions ? "dimensions" : null });
  }
  if (upstream.status === 429) return openAIError(503, "The model provider is busy. Please try again shortly.");
  if (!upstream.ok) return openAIError(502, `The model provider answered HTTP ${upstream.status}.`);
  if (!answer || !Array.isArray(answer.data) || answer.data.length !== request.inputs) {
    return openAIError(502, "The model provider's answer was not a list of embeddings.");
  }
  return answer;
}

/**
 * Charges the account and the key what the provider says the inputs were
 * (believed within bounds, else the app's estimate) and returns it; a call
 * the provider did not answer gives its claim back and costs nothing.
 */
async function settle(
  { db, keyId }: KeyCaller,
  { reservation, model }: Admitted,
  request: EmbeddingsRequest,
  answer: EmbeddingsAnswer | undefined,
): Promise<number> {
  try {
    if (!answer) {
      await refundMessage(db, reservation);
      await countKeyUsage(db, keyId, { inputTokens: 0, outputTokens: 0, costMicroUsd: 0 });
      return 0;
    }
    const ceiling = reportedUsageCeiling(request.promptTokens, 0);
    const believed = believableUsage({ inputTokens: answer.usage?.prompt_tokens, outputTokens: 0 }, ceiling);
    const inputTokens = believed?.inputTokens ?? request.promptTokens;
    const spent = { inputTokens, outputTokens: 0, costMicroUsd: costMicroUsd(priceOf(model.id), inputTokens, 0) };
    await settleMessage(db, reservation, spent);
    await countKeyUsage(db, keyId, spent);
    return inputTokens;
  } catch (error) {
    logBackendFault("postgres", "settling an embeddings call", error);
    return request.promptTokens;
  }
}
