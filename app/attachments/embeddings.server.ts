import { embed, embedMany, type EmbeddingModel } from "ai";
import { getConfig } from "~/config.server";
import { logBackendFault } from "~/deadline.server";
import { createEmbeddingModel } from "~/llm/provider.server";

/**
 * Passages found by meaning as well as by words (docs/decisions/071), when
 * the provider has an embeddings model (LLM_EMBEDDING_MODEL at LLM_BASE_URL).
 * Optional by design: when it is not configured, or fails, or is slow, the
 * passages are stored and searched by full-text search alone — an upload or
 * an answer never fails because of it.
 */

/** Longest wait for a question's vector: it sits before the first token. */
const QUESTION_TIMEOUT_MS = 2_000;

let cached: { key: string; model: EmbeddingModel } | undefined;

function model(): EmbeddingModel | undefined {
  const { baseURL, apiKey, embeddingModel } = getConfig().llm;
  if (!baseURL || !embeddingModel) return undefined;
  const key = `${baseURL}\n${apiKey ?? ""}\n${embeddingModel}`;
  if (cached?.key !== key) cached = { key, model: createEmbeddingModel({ baseURL, apiKey, modelId: embeddingModel }) };
  return cached.model;
}

export function embeddingsEnabled(): boolean {
  return model() !== undefined;
}

/** Vectors for a document's passages, in order; undefined when not configured or when the provider failed in time. */
export async function embedPassages(texts: readonly string[], timeoutMs: number): Promise<number[][] | undefined> {
  const embedder = model();
  if (!embedder || texts.length === 0) return undefined;
  try {
    // The SDK splits the passages into as many requests as the model takes inputs per call.
    const { embeddings } = await embedMany({
      model: embedder,
      values: [...texts],
      maxParallelCalls: 2,
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(Math.max(1, timeoutMs)),
    });
    return embeddings.length === texts.length ? embeddings.map(unit) : undefined;
  } catch (error) {
    logBackendFault("model", "embedding a document's passages", error);
    return undefined;
  }
}

/** The question's vector, or undefined (then full-text search alone answers). */
export async function embedQuestion(text: string): Promise<number[] | undefined> {
  const embedder = model();
  if (!embedder || text.trim() === "") return undefined;
  try {
    const { embedding } = await embed({
      model: embedder,
      value: text,
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(QUESTION_TIMEOUT_MS),
    });
    return unit(embedding);
  } catch (error) {
    logBackendFault("model", "embedding a question", error);
    return undefined;
  }
}

/** Scaled to length 1, so that a dot product is the cosine (a zero vector stays zero). */
function unit(vector: readonly number[]): number[] {
  const length = Math.hypot(...vector);
  return length > 0 ? vector.map((value) => value / length) : [...vector];
}
