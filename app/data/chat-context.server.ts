import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { conversations, messages, projects, userPreferences, userToolSettings } from "~/db/schema";
import type { ConversationRow } from "./conversations.server";
import type { MessageRow } from "./messages.server";
import { enabledToolIds } from "./preferences.server";
import { memoryEnabledSql, recalledMemoriesSql, type RecalledMemory } from "./memories.server";
import { memoryRoleChoices, memoryRoleChoicesSql } from "./memory-access.server";
import type { RoleChoices } from "./role-switches.server";

/** What the chat endpoint plans a reply from (app/chat/reply-plan.server.ts). */
export interface ChatContext {
  /** null: the user has no conversation with this id (yet). */
  conversation: ConversationRow | null;
  storedRows: MessageRow[];
  enabledToolIds: string[];
  /** Every tool switch the user turned off, built-in and servers' (app/data/mcp-servers.server.ts). */
  switchedOffToolIds: string[];
  /** The user's custom instructions (a conversation to be created starts with them). */
  customInstructions: string;
  /**
   * The message id is already a message of another conversation (anyone's):
   * storing it would fail, so it is refused before the model is asked.
   */
  messageIdTaken: boolean;
  /** The conversation id is another user's: a new chat cannot take it. */
  conversationTaken: boolean;
  /**
   * The instructions of the project the chat is in (a new chat: the project
   * it is started in), read at every reply; null when it is in none, or the
   * project named is not the user's (docs/decisions/106).
   */
  projectInstructions: string | null;
  /** The user has memory on (docs/decisions/103). */
  memoryEnabled: boolean;
  /** Their memories, the most relevant to the message first; none when memory is off or the chat is temporary. */
  memories: RecalledMemory[];
  /**
   * The admins' memory switch per role (docs/decisions/105), read with the
   * rest so the check is fresh on every message at no extra round trip; the
   * endpoint applies it once the sender's role is confirmed.
   */
  memoryRoleChoices: RoleChoices;
}

/** The message being answered, for the memories it recalls. */
export interface ChatContextMessage {
  id: string;
  text: string;
  /** A new temporary chat: it recalls nothing (docs/decisions/085). */
  temporary?: boolean;
  /** The project a new chat is started in (ignored once the conversation exists). */
  projectId?: string;
}

/**
 * Everything a reply is planned from, in one query (one round trip): the
 * user's conversation with its messages (ownership checked in SQL), the
 * tools they switched off, their custom instructions, the instructions of the
 * chat's project, their memories, and the admins' memory switch per role.
 */
export async function loadChatContext(
  db: Db,
  uid: string,
  conversationId: string,
  message: ChatContextMessage,
): Promise<ChatContext> {
  const messageId = message.id;
  const rows = await db
    .select({
      conversation: conversations,
      message: messages,
      toolsOff: sql<string[]>`(select coalesce(array_agg(${userToolSettings.toolId}), '{}') from ${userToolSettings}
        where ${userToolSettings.uid} = ${uid} and not ${userToolSettings.enabled})`,
      customInstructions: sql<string | null>`(select ${userPreferences.customInstructions} from ${userPreferences}
        where ${userPreferences.uid} = ${uid})`,
      // messages.id is global: an id of another conversation (this user's or anyone's) can never be stored here.
      messageIdTaken: sql<boolean>`exists (select 1 from ${messages} taken
        where taken.id = ${messageId}::uuid and taken.conversation_id <> ${conversationId}::uuid)`,
      conversationTaken: sql<boolean>`exists (select 1 from ${conversations} other
        where other.id = ${conversationId}::uuid and other.uid <> ${uid})`,
      // The stored chat's project, or the one a new chat names; the user's own only.
      projectInstructions: sql<string | null>`(select ${projects.instructions} from ${projects}
        where ${projects.uid} = ${uid} and ${projects.id} = case when ${conversations.id} is null
          then ${message.projectId ?? null}::uuid else ${conversations.projectId} end)`,
      memoryEnabled: memoryEnabledSql(uid),
      memories: recalledMemoriesSql(uid, message.text, conversationId, message.temporary === true),
      memoryRoles: memoryRoleChoicesSql(),
    })
    // One row even when the conversation doesn't exist (yet), for the preferences.
    .from(sql`(select 1) as here`)
    .leftJoin(conversations, and(eq(conversations.id, conversationId), eq(conversations.uid, uid)))
    .leftJoin(messages, eq(messages.conversationId, conversations.id))
    .orderBy(asc(messages.seq));
  return {
    conversation: rows[0]?.conversation ?? null,
    storedRows: rows.flatMap((row) => (row.message ? [row.message] : [])),
    enabledToolIds: enabledToolIds(rows[0]?.toolsOff ?? []),
    switchedOffToolIds: rows[0]?.toolsOff ?? [],
    customInstructions: rows[0]?.customInstructions ?? "",
    messageIdTaken: rows[0]?.messageIdTaken === true,
    conversationTaken: rows[0]?.conversationTaken === true,
    projectInstructions: rows[0]?.projectInstructions ?? null,
    memoryEnabled: rows[0]?.memoryEnabled !== false,
    memories: rows[0]?.memories ?? [],
    memoryRoleChoices: memoryRoleChoices(rows[0]?.memoryRoles),
  };
}
