import { streamText, type LanguageModel } from "ai";
import { getConfig } from "~/config.server";
import { priceOf } from "~/data/budgets.server";
import { MAX_TITLE_LENGTH, replaceTitleIfUnchanged } from "~/data/conversations.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import { recordExtraUsage } from "~/data/usage.server";
import type { Db } from "~/db/client.server";
import { estimateTextTokens } from "~/budgets/prompt-estimate";
import { getModelRegistry, type ModelRegistry } from "~/llm/models.server";
import { log } from "~/log/logger.server";
import { costMicroUsd } from "~/settings/budget-settings";
import { isStorableText } from "~/text/storable-text";
import { publishConversationEvent } from "./live/conversation-events.server";
import { cleanTitle, TITLE_SYSTEM_PROMPT, titlePrompt } from "./title-prompt";

/**
 * A new chat's generated title (docs/decisions/086). Once the first reply is
 * stored, a small model call — LLM_TITLE_MODEL, by default the cheapest model
 * offered — writes a 3–6 word title; each piece of it is sent to the user's
 * open lists as it comes. It runs beside the reply, never in its way: the
 * reply has been stored and its readers told before it starts. On any
 * failure the first-line title the chat was stored with stays
 * (app/chat/title.ts). It replaces only that title: a chat renamed meanwhile
 * keeps its name. Its tokens are the user's usage, like a reply's.
 */

/** Longest a title may take, start to end: past this it is not worth waiting for. */
const TITLE_TIMEOUT_MS = 20_000;
const MAX_TITLE_TOKENS = 24;
/** A title is at most this many words (the prompt asks for 3–6). */
const MAX_WORDS = 10;

export interface TitleJob {
  uid: string;
  conversationId: string;
  userText: string;
  replyText: string;
  /** The title the chat was stored with (the first-line one): replaced only while it is still this. */
  storedTitle: string;
  /** The UTC day the usage joins (the reply's). */
  usageDay: string;
  role?: string;
}

export type TitleOutcome =
  | { kind: "generated"; title: string }
  | { kind: "kept"; title: string | null; reason: "off" | "renamed" | "failed" | "deleted" };

/** Starts the title off the reply's path; whatever happens to it is logged, never thrown. */
export function generateTitleLater(db: Db, job: TitleJob): void {
  void generateTitle(db, job).catch((error) => log().warn({ reason: reasonOf(error) }, "a generated title failed"));
}

export async function generateTitle(db: Db, job: TitleJob): Promise<TitleOutcome> {
  const model = await titleModel();
  if (!model) return { kind: "kept", title: job.storedTitle, reason: "off" };
  let shown = false;
  const show = (title: string, generating: boolean) =>
    publishConversationEvent(db, job.uid, { type: "title", conversationId: job.conversationId, title, generating });
  let title: string;
  try {
    title = await streamTitle(db, job, model, (partial) => {
      shown = true;
      void show(partial, true);
    });
  } catch (error) {
    log().warn({ model: model.id, reason: reasonOf(error) }, "a title could not be generated; the first line stays");
    if (shown) await show(job.storedTitle, false); // the pieces shown give way to the title kept
    return { kind: "kept", title: job.storedTitle, reason: "failed" };
  }
  const result = await replaceTitleIfUnchanged(db, job.uid, job.conversationId, job.storedTitle, title);
  if (!result) return { kind: "kept", title: null, reason: "deleted" };
  // Renamed meanwhile: the lists that were shown the pieces show the user's name again.
  if (result.title !== null) await show(result.title, false);
  return result.replaced ? { kind: "generated", title } : { kind: "kept", title: result.title, reason: "renamed" };
}

/** Streams the model's title, calling `onPiece` with the title so far; resolves with the whole, or throws. */
async function streamTitle(
  db: Db,
  job: TitleJob,
  model: { id: string; languageModel: LanguageModel },
  onPiece: (title: string) => void,
): Promise<string> {
  const prompt = titlePrompt(job.userText, job.replyText);
  let failure: unknown;
  const result = streamText({
    model: model.languageModel,
    system: TITLE_SYSTEM_PROMPT,
    prompt,
    maxOutputTokens: MAX_TITLE_TOKENS,
    maxRetries: 0,
    abortSignal: AbortSignal.timeout(Math.min(TITLE_TIMEOUT_MS, getConfig().llm.timeoutMs)),
    onError: ({ error }) => {
      failure ??= error;
    },
  });
  let text = "";
  let last = "";
  try {
    for await (const delta of result.textStream) {
      text += delta;
      const piece = cleanTitle(text, MAX_TITLE_LENGTH);
      if (piece && piece !== last) onPiece((last = piece));
    }
  } finally {
    // Whatever was used is the user's, finished or not.
    await meter(db, job, model.id, prompt, text, result);
  }
  if (failure !== undefined) throw failure;
  const title = cleanTitle(text, MAX_TITLE_LENGTH);
  if (!title || title.split(" ").length > MAX_WORDS || !isStorableText(title))
    throw new Error(`the model's answer is not a title: ${JSON.stringify(text.slice(0, 200))}`);
  return title;
}

/**
 * Records the call's tokens at the model's price (LLM_MODEL_PRICES); a
 * provider that answered but reports no usage is charged at the estimate, as
 * replies are.
 */
async function meter(
  db: Db,
  job: TitleJob,
  modelId: string,
  prompt: string,
  output: string,
  result: { usage: PromiseLike<{ inputTokens?: number; outputTokens?: number }> },
) {
  const reported = await Promise.resolve(result.usage).catch(() => undefined);
  let inputTokens = reported?.inputTokens ?? 0;
  let outputTokens = reported?.outputTokens ?? 0;
  // A call refused before any answer (an HTTP error) reported nothing and cost nothing.
  if (inputTokens + outputTokens === 0 && output === "") return;
  if (inputTokens + outputTokens === 0) {
    inputTokens = estimateTextTokens(TITLE_SYSTEM_PROMPT) + estimateTextTokens(prompt);
    outputTokens = estimateTextTokens(output);
  }
  if (inputTokens + outputTokens === 0) return;
  try {
    await recordExtraUsage(db, {
      uid: job.uid,
      day: job.usageDay,
      inputTokens,
      outputTokens,
      costMicroUsd: costMicroUsd(priceOf(modelId), inputTokens, outputTokens),
      role: job.role,
    });
  } catch (error) {
    if (!isAccountDeleted(error))
      log().warn({ reason: reasonOf(error) }, "a generated title's usage could not be recorded");
  }
}

/** The model that writes titles, or null: titles are off, or only the demo (which writes no real title) is there. */
export async function titleModel(): Promise<{ id: string; languageModel: LanguageModel } | null> {
  const configured = getConfig().llm.titleModel;
  if (configured?.toLowerCase() === "off") return null;
  const registry = await getModelRegistry();
  if (registry.source === "demo") return null;
  const id = configured ?? cheapestModel(registry);
  return id ? { id, languageModel: registry.languageModel(id) } : null;
}

/** The offered model with the lowest price per token (unpriced models cost 0); ties go to the earlier one. */
export function cheapestModel(registry: Pick<ModelRegistry, "models">): string | undefined {
  let best: { id: string; cost: number } | undefined;
  for (const { id } of registry.models) {
    const price = priceOf(id);
    const cost = price.inputPerMillion + price.outputPerMillion;
    if (!best || cost < best.cost) best = { id, cost };
  }
  return best?.id;
}

/** One line for the log: the model's prompt and answer are the user's words, kept out of it. */
function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}
