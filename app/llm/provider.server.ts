/**
 * Talking to a real model over the OpenAI-compatible chat completions API
 * (OpenAI, Ollama, vLLM, LM Studio, ...). Configuration is read elsewhere;
 * these functions take plain values.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { EmbeddingModel, LanguageModel } from "ai";

// Node's own fetch, taken when the server build is imported: remix-serve then
// replaces the global with @remix-run/web-fetch, whose abort handler throws an
// uncaught TypeError ("Cannot cancel a stream that already has a reader") when
// a request is aborted while its body is being read — Stop would crash the server —
// and which, after a streamed answer read to its end, sends the next request on the
// same kept-alive connection in a shape the model server refuses with an empty 400.
// Every call to a model provider goes through this one.
const nativeFetch = globalThis.fetch;
export const providerFetch: typeof fetch = nativeFetch;

export interface ChatModelSettings {
  /** e.g. "http://127.0.0.1:11434/v1" or "https://api.openai.com/v1". */
  baseURL: string;
  /** Sent as a Bearer token; local servers such as Ollama need none. */
  apiKey?: string;
  modelId: string;
}

export function createChatModel({ baseURL, apiKey, modelId }: ChatModelSettings): LanguageModel {
  const provider = createOpenAICompatible({
    name: "openai-compatible",
    baseURL,
    apiKey,
    // Without this, streamed answers come back with no token counts.
    includeUsage: true,
    fetch: nativeFetch,
  });
  return provider.chatModel(modelId);
}

/** An embeddings model at the same endpoint (`POST {baseURL}/embeddings`), for finding passages by meaning. */
export function createEmbeddingModel({ baseURL, apiKey, modelId }: ChatModelSettings): EmbeddingModel {
  return createOpenAICompatible({ name: "openai-compatible", baseURL, apiKey, fetch: nativeFetch }).embeddingModel(
    modelId,
  );
}

/**
 * Model ids offered by the server at `baseURL` (`GET {baseURL}/models`), or
 * null when it cannot be reached in `timeoutMs` or does not answer like an
 * OpenAI-compatible server. Used to detect a local Ollama at startup, so it
 * must never throw or hang.
 */
export async function listOllamaModels(baseURL: string, timeoutMs: number, apiKey?: string): Promise<string[] | null> {
  const url = `${baseURL.replace(/\/+$/, "")}/models`;
  try {
    const response = await nativeFetch(url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return null;
    const body: unknown = await response.json();
    if (!isModelList(body)) return null;
    return body.data.map((model) => model.id);
  } catch {
    // Refused connection, timeout, bad URL or unparseable body: all mean "no usable server there".
    return null;
  }
}

function isModelList(body: unknown): body is { data: Array<{ id: string }> } {
  if (typeof body !== "object" || body === null || !("data" in body) || !Array.isArray(body.data)) return false;
  return body.data.every(
    (model: unknown) => typeof model === "object" && model !== null && "id" in model && typeof model.id === "string",
  );
}
