import type { AttachmentRef } from "~/conversation/attachment-types";
import type { ChatContext } from "~/data/chat-context.server";
import { toChatMessage } from "~/data/messages.server";
import { PROJECT_NOT_FOUND, TEMPORARY_IN_PROJECT } from "~/data/project-rules";
import { getConfig } from "~/config.server";
import type { ModelOption, ModelRegistry } from "~/llm/models.server";
import { buildTools } from "~/llm/tools.server";
import { enabledToolIds } from "~/data/preferences.server";
import { WebSourceList } from "~/search/source-list";
import type { ChatRequest } from "~/conversation/chat-request";
import { HistoryError, historyForReply, ParentError, trimHistory } from "~/conversation/history";
import type { ReplyPlan } from "./reply.server";
import { chatToolsOff } from "./chat-tools.server";
import { memoryForReply } from "./memory.server";
import { systemPrompt } from "./system-prompt";
import { titleFromExchange } from "./title";

/**
 * What a reply is planned from, split so that the chat endpoint can start the
 * model request early: the context (app/data/chat-context.server.ts) is only
 * read (it may be read before the session is confirmed) and `planReply` is
 * pure. A new chat's conversation is written only with its first exchange
 * (saveExchange), so a send that fails or is refused leaves nothing behind.
 */

/** A prompt tool a new chat starts with (its instructions become the conversation's). */
export interface ChatTool {
  name: string;
  systemPrompt: string;
}

/** Roughly what fits a small model's context window; older messages are left out first. */
const HISTORY_CHARACTER_BUDGET = 100_000;

export type Refusal = { status: 400 | 404 | 409; error: string };

export const MESSAGE_ID_TAKEN =
  "This message id is already used by another message. Send your message as a new one (with a new id).";

export function planReply(
  uid: string,
  context: ChatContext,
  input: ChatRequest,
  model: ModelOption,
  registry: ModelRegistry,
  tool?: ChatTool,
  attachments: AttachmentRef[] = [],
  /** The sender's role has memory (app/data/memory-access.server.ts: the admins' switch, else MEMORY_ROLES). */
  { memoryAllowed = false }: { memoryAllowed?: boolean } = {},
): ReplyPlan | Refusal {
  const { conversation } = context;
  // Another user's id looks like one that does not exist.
  if (!conversation && (!input.create || context.conversationTaken))
    return { status: 404, error: "This conversation doesn't exist." };
  const refusal = projectRefusal(context, input);
  if (refusal) return refusal;
  // Refused before the model is asked: such a message could never be stored (messages.id is global),
  // and a save failing on purpose must not yield a reply (docs/decisions/044).
  if (context.messageIdTaken) return { status: 409, error: MESSAGE_ID_TAKEN };

  // A message answered again keeps the files it was sent with (they are in its stored parts).
  const user = { id: input.message.id, text: input.message.parts[0].text, attachments };
  let reply;
  try {
    reply = historyForReply(
      context.storedRows.map(toChatMessage),
      user,
      input.parentId,
      conversation?.currentLeafId ?? null,
    );
  } catch (error) {
    if (error instanceof HistoryError) return { status: 409, error: error.message };
    if (error instanceof ParentError) return { status: 400, error: error.message };
    throw error;
  }

  const webSources = new WebSourceList();
  // Temporary chats neither read nor write memory (docs/decisions/085, 103).
  const memory = memoryForReply(context, {
    allowed: memoryAllowed,
    temporary: conversation ? conversation.temporary : input.temporary === true,
  });
  // The user's own switches, narrowed further by this chat's choice (stored, and sent with the request).
  const switchedOff = [
    ...new Set([...context.switchedOffToolIds, ...chatToolsOff(conversation?.toolsOff, input.toolsOff)]),
  ];
  return {
    uid,
    conversationId: input.conversationId,
    kind: reply.kind,
    parentId: reply.parentId,
    user: { ...user, attachments: reply.kind === "submit" ? attachments : [], sentAt: new Date() },
    history: trimHistory(reply.history, HISTORY_CHARACTER_BUDGET),
    // A conversation about to be created starts with the user's custom instructions.
    system: systemPrompt({
      conversationPrompt: conversation ? conversation.systemPrompt : (tool?.systemPrompt ?? null),
      projectInstructions: context.projectInstructions,
      customInstructions: conversation ? conversation.customInstructions : context.customInstructions,
      memories: memory.recalled.map((recalled) => recalled.text),
    }),
    memory,
    model: { id: model.id, demo: model.demo },
    vision: model.vision,
    languageModel: registry.languageModel(model.id),
    tools: buildTools({ enabledIds: enabledToolIds(switchedOff), timeZone: input.timeZone, webSources }),
    switchedOffToolIds: switchedOff,
    toolsOff: input.toolsOff,
    webSources,
    timeoutMs: getConfig().llm.timeoutMs,
    title: titleFromExchange(user.text),
    create: conversation
      ? undefined
      : {
          systemPrompt: tool?.systemPrompt ?? null,
          customInstructions: context.customInstructions,
          title: tool?.name ?? null,
          ...(input.temporary ? { temporary: true } : {}),
          ...(input.projectId ? { projectId: input.projectId } : {}),
        },
  };
}

/**
 * A new chat names a project: it must be the user's (another user's looks
 * like none: 404), and a temporary chat is never in one (docs/decisions/106).
 * An existing conversation keeps its own project; the field is ignored.
 */
function projectRefusal(context: ChatContext, input: ChatRequest): Refusal | null {
  if (context.conversation || !input.projectId) return null;
  if (input.temporary) return { status: 400, error: TEMPORARY_IN_PROJECT };
  if (context.projectInstructions === null) return { status: 404, error: PROJECT_NOT_FOUND };
  return null;
}
