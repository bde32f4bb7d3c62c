import { z } from "zod";
import { estimateTextTokens } from "~/budgets/prompt-estimate";

/**
 * A `POST /v1/embeddings` body as OpenAI defines it (docs/decisions/099,
 * docs/api.md): `input` as a string, a list of strings, a list of token ids or
 * a list of such lists; `model`; `encoding_format` float or base64;
 * `dimensions`. Checked before anything is counted; an unknown field is
 * refused as OpenAI refuses it. What the app passes on is the input, the
 * model, the format and the dimensions — nothing the caller could bill to
 * the operator's provider account otherwise (`user` is kept).
 */

/** OpenAI's own limit on the inputs of one call. */
export const MAX_EMBEDDING_INPUTS = 2_048;
/** OpenAI's limit on one input (8,192 tokens), in the app's estimate. */
export const MAX_INPUT_TOKENS = 8_192;

const KNOWN_FIELDS = new Set(["input", "model", "encoding_format", "dimensions", "user"]);

const tokenIds = z.array(z.number().int().nonnegative()).min(1);

const shape = z.object({
  model: z.string({ message: "Name the model: `model` is required." }).min(1, "Name the model: `model` is required."),
  input: z.union(
    [
      z.string().min(1),
      z.array(z.string().min(1)).min(1).max(MAX_EMBEDDING_INPUTS),
      tokenIds,
      z.array(tokenIds).min(1).max(MAX_EMBEDDING_INPUTS),
    ],
    {
      message: `\`input\` must be a non-empty string, a list of up to ${MAX_EMBEDDING_INPUTS} non-empty strings, or token ids.`,
    },
  ),
  encoding_format: z.enum(["float", "base64"], { message: "`encoding_format` must be float or base64." }).optional(),
  dimensions: z
    .number({ message: "`dimensions` must be a whole number." })
    .int("`dimensions` must be a whole number.")
    .positive("`dimensions` must be at least 1.")
    .optional(),
  user: z.string().optional(),
});

export interface EmbeddingsRequest {
  model: string;
  /** The body to pass on to the provider (the model is the app's). */
  passOn: { input: unknown; encoding_format?: string; dimensions?: number };
  inputs: number;
  /** The inputs' size, estimated on the high side (a token id is one token). */
  promptTokens: number;
}

export type ParsedEmbeddings = { ok: true; request: EmbeddingsRequest } | { ok: false; error: string; param?: string };

export function parseEmbeddingsRequest(body: unknown): ParsedEmbeddings {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, error: "The request body must be a JSON object." };
  }
  const unknown = Object.keys(body).find((field) => !KNOWN_FIELDS.has(field));
  if (unknown) return { ok: false, error: `Unrecognized request argument supplied: ${unknown}`, param: unknown };
  const parsed = shape.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: issue.message, param: String(issue.path[0] ?? "") || undefined };
  }
  const { model, input, encoding_format: format, dimensions } = parsed.data;
  const each = listOf(input).map(tokensOf);
  if (each.some((tokens) => tokens > MAX_INPUT_TOKENS)) {
    return { ok: false, error: `Each input may be at most ${MAX_INPUT_TOKENS} tokens long.`, param: "input" };
  }
  return {
    ok: true,
    request: {
      model,
      passOn: { input, ...(format ? { encoding_format: format } : {}), ...(dimensions ? { dimensions } : {}) },
      inputs: each.length,
      promptTokens: each.reduce((sum, tokens) => sum + tokens, 0),
    },
  };
}

type Input = z.infer<typeof shape>["input"];

/** The separate inputs: one string or one list of token ids is a single input. */
function listOf(input: Input): Array<string | number[]> {
  if (typeof input === "string") return [input];
  if (input.every((item) => typeof item === "number")) return [input as number[]];
  return input as Array<string | number[]>;
}

function tokensOf(input: string | number[]): number {
  return typeof input === "string" ? estimateTextTokens(input) : input.length;
}
