/**
 * The model registry: which models the assistant offers and how to reach
 * them. Configured from the environment (LLM_BASE_URL, LLM_API_KEY,
 * LLM_MODELS; ADR 014, docs/configuration.md). With nothing configured,
 * local mode uses an Ollama on 127.0.0.1:11434 when it answers, else the
 * built-in demo model, which is labelled as a demo wherever it appears.
 */
import type { LanguageModel } from "ai";
import { lookupRole, roleKey } from "~/settings/role-settings";
import { getConfig, type Config } from "~/config.server";
import { createDemoModel, DEMO_MODEL_ID, DEMO_MODEL_LABEL } from "./demo-model.server";
import { createChatModel, listOllamaModels } from "./provider.server";

export const LOCAL_OLLAMA_URL = "http://127.0.0.1:11434/v1";

/** A list learned from a server (not configured) is asked again after this long. */
const DISCOVERY_TTL_MS = 30_000;
const OLLAMA_PROBE_TIMEOUT_MS = 500;
const ENDPOINT_LIST_TIMEOUT_MS = 3_000;

export interface ModelOption {
  id: string;
  label: string;
  /** The built-in demo: not an AI. */
  demo: boolean;
  /** Takes images (LLM_VISION_MODELS); other models are sent none, and the user is told before sending. */
  vision: boolean;
}

export type ModelSource = "configured" | "ollama" | "demo";

export interface ModelRegistry {
  source: ModelSource;
  /** Every model offered; the first is the default. */
  models: ModelOption[];
  languageModel(id: string): LanguageModel;
  /** The OpenAI-compatible endpoint behind the models (none for the built-in demo): the API passes calls through to it. */
  endpoint?: { baseURL: string; apiKey?: string };
}

function endpointRegistry(
  source: ModelSource,
  baseURL: string,
  apiKey: string | undefined,
  ids: string[],
  names = new Map<string, string>(),
  vision: readonly string[] | "*" = [],
): ModelRegistry {
  return {
    source,
    models: ids.map((id) => ({
      id,
      label: names.get(id) ?? id,
      demo: false,
      vision: vision === "*" || vision.includes(id),
    })),
    languageModel: (modelId) => createChatModel({ baseURL, apiKey, modelId }),
    endpoint: { baseURL, ...(apiKey ? { apiKey } : {}) },
  };
}

function demoRegistry(): ModelRegistry {
  return {
    source: "demo",
    // It reads nothing it is sent, images included: taking them lets local mode show attachments end to end.
    models: [{ id: DEMO_MODEL_ID, label: DEMO_MODEL_LABEL, demo: true, vision: true }],
    languageModel: () => createDemoModel(),
  };
}

/** Builds the registry for a configuration; `ollamaURL` is where local mode looks for Ollama. */
export async function resolveModelRegistry(config: Config, ollamaURL = LOCAL_OLLAMA_URL): Promise<ModelRegistry> {
  const { baseURL, apiKey, models, modelNames } = config.llm;
  const vision = config.visionModels;
  if (baseURL) {
    if (models.length > 0) return endpointRegistry("configured", baseURL, apiKey, models, modelNames, vision);
    // No list configured: offer what the endpoint itself lists.
    const listed = await listOllamaModels(baseURL, ENDPOINT_LIST_TIMEOUT_MS, apiKey);
    return endpointRegistry("configured", baseURL, apiKey, listed ?? [], modelNames, vision);
  }
  if (config.mode === "local") {
    const local = await listOllamaModels(ollamaURL, OLLAMA_PROBE_TIMEOUT_MS);
    if (local && local.length > 0) return endpointRegistry("ollama", ollamaURL, undefined, local, modelNames, vision);
  }
  return demoRegistry();
}

let cache: { config: Config; registry: Promise<ModelRegistry>; expiresAt: number } | undefined;

/** The registry for the current configuration; lists learned from a server are refreshed now and then. */
export function getModelRegistry(): Promise<ModelRegistry> {
  const config = getConfig();
  const now = Date.now();
  if (cache && cache.config === config && now < cache.expiresAt) return cache.registry;
  const previous = cache?.config === config ? cache.registry : undefined;
  const registry = resolveModelRegistry(config);
  const isStatic = Boolean(config.llm.baseURL && config.llm.models.length > 0);
  cache = { config, registry, expiresAt: isStatic ? Number.POSITIVE_INFINITY : now + DISCOVERY_TTL_MS };
  // While a refresh is under way, keep answering with the list we had.
  return previous ? Promise.race([previous, registry]) : registry;
}

/** The models a signed-in user may pick, in registry order (all unless LLM_ROLE_MODELS says otherwise). */
export function modelsForRole(registry: ModelRegistry, session: { role: string; isAdmin: boolean }): ModelOption[] {
  const allowance = lookupRole(getConfig().llm.roleModels, roleKey(session));
  if (allowance === undefined || allowance === "*") return registry.models;
  const allowed = new Set(allowance);
  return registry.models.filter((model) => allowed.has(model.id));
}
