import { getModelRegistry, modelsForRole } from "~/llm/models.server";
import { embeddingsModel } from "./embeddings-endpoint.server";
import { keyCaller } from "./key-auth.server";
import { openAIJson } from "./openai-errors.server";

/**
 * GET /v1/models (docs/decisions/099): the models the key's owner may use
 * now (their role's), in OpenAI's list shape, each with the readable name the
 * chat shows (`name`, a field OpenAI's own list does not have and clients ignore),
 * and the embeddings model when one is configured (OpenAI lists its own too).
 */

/** Models have no creation time here; OpenAI's clients read the field, so it is the same for all. */
const CREATED = 1_764_547_200; // 2025-12-01

export async function modelsResponse(request: Request): Promise<Response> {
  const caller = await keyCaller(request);
  if (caller instanceof Response) return caller;
  const registry = await getModelRegistry();
  const chat = registry.endpoint ? modelsForRole(registry, caller.who) : [];
  const embeddings = embeddingsModel();
  const models = embeddings && !chat.some((model) => model.id === embeddings.id) ? [...chat, embeddings] : chat;
  return openAIJson({
    object: "list",
    data: models.map((model) => ({
      id: model.id,
      object: "model",
      created: CREATED,
      owned_by: "nuvara",
      name: model.label,
    })),
  });
}
