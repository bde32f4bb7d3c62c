import { findOrCreateConversation } from "~/data/conversations.server";
import type { ChatContext } from "~/data/chat-context.server";
import { listMessages, toChatMessage } from "~/data/messages.server";
import type { Db } from "~/db/client.server";
import { getConfig } from "~/config.server";
import type { ModelOption, ModelRegistry } from "~/llm/models.server";
import { buildTools } from "~/llm/tools.server";
import type { ChatRequest } from "./chat-request";
import { HistoryError, historyForReply, trimHistory } from "./history";
import type { ReplyPlan } from "./reply.server";
import { systemPrompt } from "./system-prompt";
import { titleFromExchange } from "./title";

/**
 * What a reply is planned from, split so that the chat endpoint can start the
 * model request early: the context (app/data/chat-context.server.ts) is only
 * read (it may be read before the session is confirmed), `planReply` is pure,
 * and `ensureConversation` — the one write — runs once the session is confirmed.
 */

/** Roughly what fits a small model's context window; older messages are left out first. */
const HISTORY_CHARACTER_BUDGET = 100_000;

export type Refusal = { status: 400 | 404 | 409; error: string };

export const MESSAGE_ID_TAKEN = "This message id is already used by another message. Send your message as a new one (with a new id).";

export function planReply(
  uid: string,
  context: ChatContext,
  input: ChatRequest,
  model: ModelOption,
  registry: ModelRegistry,
): ReplyPlan | Refusal {
  const { conversation } = context;
  if (!conversation && !input.create) return { status: 404, error: "This conversation doesn't exist." };
  // Refused before the model is asked: such a message could never be stored (messages.id is global),
  // and a save failing on purpose must not yield a reply (docs/decisions/044).
  if (context.messageIdTaken) return { status: 409, error: MESSAGE_ID_TAKEN };

  const user = { id: input.message.id, text: input.message.parts[0].text };
  let reply;
  try {
    reply = historyForReply(context.storedRows.map(toChatMessage), user);
  } catch (error) {
    if (error instanceof HistoryError) return { status: 409, error: error.message };
    throw error;
  }

  return {
    uid,
    conversationId: input.conversationId,
    kind: reply.kind,
    user: { ...user, sentAt: new Date() },
    history: trimHistory(reply.history, HISTORY_CHARACTER_BUDGET),
    // A conversation about to be created starts with the user's custom instructions.
    system: systemPrompt({
      conversationPrompt: conversation?.systemPrompt ?? null,
      customInstructions: conversation ? conversation.customInstructions : context.customInstructions,
    }),
    model: { id: model.id, demo: model.demo },
    languageModel: registry.languageModel(model.id),
    tools: buildTools({ enabledIds: context.enabledToolIds, timeZone: input.timeZone }),
    timeoutMs: getConfig().llm.timeoutMs,
    title: titleFromExchange(user.text),
  };
}

/**
 * Creates the conversation the context found missing. "existing": there was
 * nothing to create; "stale": someone made it meanwhile (the same user's
 * concurrent request), so the plan must be made again from the stored
 * messages; "foreign": the id is another user's.
 */
export async function ensureConversation(
  db: Db,
  uid: string,
  context: ChatContext,
  input: ChatRequest,
  model: ModelOption,
): Promise<"existing" | "created" | { stale: ChatContext } | "foreign"> {
  if (context.conversation) return "existing";
  const made = await findOrCreateConversation(db, {
    id: input.conversationId,
    uid,
    customInstructions: context.customInstructions,
    model: model.id,
  });
  if (!made) return "foreign";
  if (made.created) return "created";
  return { stale: { ...context, conversation: made.conversation, storedRows: await listMessages(db, made.conversation.id) } };
}
