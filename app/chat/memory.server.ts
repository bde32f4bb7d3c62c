import { tool, type ToolSet } from "ai";
import { z } from "zod";
import type { Db } from "~/db/client.server";
import type { ChatContext } from "~/data/chat-context.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import { addMemory, forgetMemory, type RecalledMemory } from "~/data/memories.server";
import { MAX_MEMORY_LENGTH, MEMORY_PROMPT_BUDGET } from "~/data/memory-rules";
import { logBackendFault } from "~/deadline.server";

/**
 * Memory in a reply (docs/decisions/103): which memories its system prompt
 * is given, and the `remember` and `forget` tools the model may call. A reply
 * gets neither when the role has no memory (the admins' switch, else
 * MEMORY_ROLES: docs/decisions/105), the user turned it off, or the chat is
 * temporary (docs/decisions/085).
 */

export interface ReplyMemory {
  /** The memory tools are offered to the model. */
  offered: boolean;
  /** The memories given to the model, the most relevant first (shown with the reply as "Used N memories"). */
  recalled: RecalledMemory[];
}

export const NO_MEMORY: ReplyMemory = { offered: false, recalled: [] };

/** The tools' names, which are also the function names the model sees. */
export const MEMORY_TOOL_IDS = ["remember", "forget"] as const;

export function memoryForReply(context: ChatContext, { allowed, temporary }: { allowed: boolean; temporary: boolean }) {
  if (!allowed || temporary || !context.memoryEnabled) return NO_MEMORY;
  return { offered: true, recalled: withinBudget(context.memories, MEMORY_PROMPT_BUDGET) };
}

/** The memories in order, each on one line, while they fit the budget (a longer one is skipped, a shorter may follow). */
export function withinBudget(memories: readonly RecalledMemory[], budget: number): RecalledMemory[] {
  const chosen: RecalledMemory[] = [];
  let left = budget;
  for (const memory of memories) {
    const text = memory.text.replace(/\s+/g, " ").trim();
    if (text.length > left) continue;
    chosen.push({ id: memory.id, text });
    left -= text.length;
  }
  return chosen;
}

/** Where the tools save: whose memories, and the chat they are saved in. */
export interface MemoryScope {
  db: Db;
  uid: string;
  conversationId: string;
}

/** The model's memory tools for one reply. */
export function memoryTools(scope: MemoryScope): ToolSet {
  return {
    remember: tool({
      description:
        "Save a lasting fact about the user to memory, so that you know it in later chats. Use it when the user asks " +
        "you to remember something, or states a lasting preference or fact about themselves (their name, job, " +
        "family, tools they use, how they like answers). Not for passing details of this chat, nor secrets such as " +
        'passwords. Write the fact as one short sentence about the user, e.g. "Prefers metric units." The user is ' +
        `shown that it was saved and can edit or delete it. At most ${MAX_MEMORY_LENGTH} characters. ` +
        "Returns { saved } or { error }.",
      inputSchema: z.object({
        fact: z.string().describe("The fact, as one short sentence about the user"),
      }),
      execute: async ({ fact }: { fact: string }) => remember(scope, fact),
    }),
    forget: tool({
      description:
        "Delete a saved memory when the user asks you to forget something or it is no longer true. Pass the " +
        "memory's text as you were given it (or a part only it contains). Returns { forgotten } or { error }.",
      inputSchema: z.object({
        memory: z.string().describe("The memory's text, as listed in what you remember about the user"),
      }),
      execute: async ({ memory }: { memory: string }) => forget(scope, memory),
    }),
  };
}

async function remember(scope: MemoryScope, fact: string): Promise<{ saved: string } | { error: string }> {
  try {
    const saved = await addMemory(scope.db, scope.uid, {
      text: fact,
      source: "model",
      conversationId: scope.conversationId,
    });
    return saved.ok ? { saved: saved.text } : { error: saved.error };
  } catch (error) {
    return failed(error, "saving a memory", "The memory could not be saved right now.");
  }
}

async function forget(scope: MemoryScope, text: string): Promise<{ forgotten: string[] } | { error: string }> {
  try {
    const forgotten = await forgetMemory(scope.db, scope.uid, text);
    return forgotten.length > 0
      ? { forgotten }
      : { error: "No single saved memory matches that text. Quote the memory as you were given it." };
  } catch (error) {
    return failed(error, "deleting a memory", "The memory could not be deleted right now.");
  }
}

function failed(error: unknown, what: string, message: string): { error: string } {
  if (isAccountDeleted(error)) return { error: "This account was deleted." };
  logBackendFault("postgres", what, error);
  return { error: message };
}
