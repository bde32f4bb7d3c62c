import { z } from "zod";
import { estimateTextTokens, IMAGE_TOKENS } from "~/budgets/prompt-estimate";

/**
 * A `POST /v1/chat/completions` body as OpenAI defines it (docs/decisions/099),
 * checked before anything is counted: the fields OpenAI knows pass through to
 * the model provider as they are, an unknown one is refused as OpenAI refuses
 * it, and the few the app decides on are checked here (one choice, a reply
 * no longer than the app allows, images only for a model that takes them).
 */

/** The fields of OpenAI's Chat Completions request; anything else is refused. */
const KNOWN_FIELDS = new Set([
  "messages",
  "model",
  "audio",
  "frequency_penalty",
  "function_call",
  "functions",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "metadata",
  "modalities",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "prompt_cache_key",
  "reasoning_effort",
  "response_format",
  "safety_identifier",
  "seed",
  "service_tier",
  "stop",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "user",
  "verbosity",
  "web_search_options",
]);

/** Kept by the app: the provider's bill and storage are the operator's, not the caller's to steer. */
const NOT_PASSED_ON = new Set(["store", "metadata", "service_tier", "user", "safety_identifier", "prompt_cache_key"]);

const MAX_MESSAGES = 2_000;

const message = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool", "function"], {
      message: "Each message's role must be system, developer, user, assistant or tool.",
    }),
    content: z.union([z.string(), z.array(z.record(z.string(), z.unknown())), z.null()]).optional(),
  })
  .passthrough();

const shape = z.object({
  model: z.string({ message: "Name the model: `model` is required." }).min(1, "Name the model: `model` is required."),
  messages: z
    .array(message, { message: "`messages` must be a list of messages." })
    .min(1, "`messages` must hold at least one message.")
    .max(MAX_MESSAGES, `\`messages\` may hold at most ${MAX_MESSAGES} messages.`),
  stream: z.boolean({ message: "`stream` must be true or false." }).optional(),
  n: z.number({ message: "`n` must be a number." }).optional(),
  max_tokens: z.number({ message: "`max_tokens` must be a whole number." }).int().nullable().optional(),
  max_completion_tokens: z
    .number({ message: "`max_completion_tokens` must be a whole number." })
    .int()
    .nullable()
    .optional(),
  tools: z.array(z.record(z.string(), z.unknown()), { message: "`tools` must be a list." }).optional(),
});

export interface CompletionRequest {
  model: string;
  stream: boolean;
  /** The longest reply the caller asked for, if they did. */
  maxTokens?: number;
  /** The body to pass on, less what the app decides (model, length, usage reporting). */
  passOn: Record<string, unknown>;
  /** Images in the messages (a model must take them). */
  images: number;
  /** The prompt's size, estimated on the high side, for the budget's hold. */
  promptTokens: number;
}

export type Parsed = { ok: true; request: CompletionRequest } | { ok: false; error: string; param?: string };

export function parseCompletionRequest(body: unknown, maxOutputTokens: number): Parsed {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, error: "The request body must be a JSON object." };
  }
  const unknown = Object.keys(body).find((field) => !KNOWN_FIELDS.has(field));
  if (unknown !== undefined)
    return { ok: false, error: `Unrecognized request argument supplied: ${unknown}`, param: unknown };
  const parsed = shape.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: issue.message, param: issue.path.map(String).join(".") || undefined };
  }
  const { model, messages, stream, n, max_tokens: maxTokens, max_completion_tokens: maxCompletion } = parsed.data;
  if (n !== undefined && n !== 1)
    return { ok: false, error: "Only one choice is offered here: `n` must be 1.", param: "n" };
  const wanted = maxCompletion ?? maxTokens ?? undefined;
  if (wanted !== undefined && (wanted < 1 || wanted > maxOutputTokens)) {
    const param = maxCompletion != null ? "max_completion_tokens" : "max_tokens";
    return { ok: false, error: `\`${param}\` must be between 1 and ${maxOutputTokens}.`, param };
  }
  const passOn = Object.fromEntries(
    Object.entries(body).filter(
      ([field]) => !NOT_PASSED_ON.has(field) && field !== "max_tokens" && field !== "max_completion_tokens",
    ),
  );
  const images = messages.reduce((sum, entry) => sum + imagesIn(entry.content), 0);
  // An image counts as a vision model counts it, not as the length of its base64.
  const withoutImages = JSON.stringify(messages, (_key, value: unknown) =>
    (value as { type?: unknown } | null)?.type === "image_url" ? null : value,
  );
  const promptTokens = estimateTextTokens(withoutImages) + estimateTextTokens(JSON.stringify(parsed.data.tools ?? []));
  return {
    ok: true,
    request: {
      model,
      stream: stream ?? false,
      ...(wanted !== undefined ? { maxTokens: wanted } : {}),
      passOn,
      images,
      promptTokens: promptTokens + images * IMAGE_TOKENS,
    },
  };
}

function imagesIn(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  return content.filter((part) => (part as { type?: unknown }).type === "image_url").length;
}
