import { json } from "@remix-run/node";
import { getConfig } from "~/config.server";
import { getDb, type Db } from "~/db/client.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import {
  addMemory,
  deleteMemory,
  getMemoryEnabled,
  listMemories,
  MEMORY_GONE,
  setMemoryEnabled,
  updateMemory,
  type MemoryView,
} from "~/data/memories.server";
import { memoryAccessFor, memoryAllowedFor, type MemoryAccess } from "~/data/memory-access.server";
import { MAX_MEMORIES, MAX_MEMORY_LENGTH } from "~/data/memory-rules";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { readBody } from "~/http/forms.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { isUuid } from "~/ids/uuid";

/**
 * The memory page (/dashboard/memory, docs/decisions/103): every memory of
 * the user, to add, edit and delete, and the switch that turns memory off.
 * Each form's answer names its intent (and the memory), so the page's other
 * forms never take it for theirs; a refused text comes back with the answer
 * and the form keeps what was typed.
 */

const NO_STORE = { "Cache-Control": "no-store" };

export type MemoryIntent = "add" | "edit" | "delete" | "switch";

export type MemoryResult =
  | { intent: MemoryIntent; ok: true; id?: string; notice: string }
  | { intent: MemoryIntent; ok: false; id?: string; error: string };

function database<T>(work: (db: Db) => Promise<T>): Promise<T> {
  return withDeadline("postgres", getConfig().backendTimeoutMs, getDb().then(work));
}

export interface MemoryPage {
  /** null: they could not be read (the page says so). */
  memories: MemoryView[] | null;
  enabled: boolean;
  /** The role has memory (the admins' switch, else MEMORY_ROLES): otherwise the page only lists and deletes. */
  allowed: boolean;
  /** An admin switched memory off for the role (docs/decisions/105): the page says so. */
  switchedOff: boolean;
  maxMemories: number;
  maxLength: number;
}

export async function memoryPage(uid: string, roleKey: string): Promise<MemoryPage> {
  let read: { memories: MemoryView[]; enabled: boolean; access: MemoryAccess } | null = null;
  try {
    read = await database(async (db) => {
      const [memories, enabled, access] = await Promise.all([
        listMemories(db, uid),
        getMemoryEnabled(db, uid),
        memoryAccessFor(db, roleKey),
      ]);
      return { memories, enabled, access };
    });
  } catch (error) {
    logBackendFault("postgres", "reading memories", error);
  }
  return {
    memories: read?.memories ?? null,
    enabled: read?.enabled ?? true,
    // Unread, the page offers no adding: the action checks again anyway.
    allowed: read?.access.allowed ?? false,
    switchedOff: read?.access.switchedOff ?? false,
    maxMemories: MAX_MEMORIES,
    maxLength: MAX_MEMORY_LENGTH,
  };
}

function answer(result: MemoryResult, status = 200) {
  return json({ memory: result }, { status, headers: NO_STORE });
}

/** The page's action: one of its four intents. */
export async function memoryAction(request: Request, uid: string, roleKey: string): Promise<Response> {
  // A memory is at most MAX_MEMORY_LENGTH characters: a message-sized body holds any that could be saved.
  const body = await readBody(request, BODY_LIMITS.message);
  if ("refusal" in body) return body.refusal;
  const field = (name: string) => (typeof body.fields[name] === "string" ? (body.fields[name] as string) : "");
  const intent = field("intent");
  const id = field("id");
  try {
    switch (intent) {
      case "add":
        if (!(await database((db) => memoryAllowedFor(db, roleKey))))
          return answer({ intent, ok: false, error: NOT_IN_PLAN }, 403);
        return written(
          intent,
          undefined,
          await database((db) => addMemory(db, uid, { text: field("text"), source: "user" })),
        );
      case "edit":
        if (!isUuid(id)) return answer({ intent, ok: false, error: MEMORY_GONE }, 404);
        return written(intent, id, await database((db) => updateMemory(db, uid, id, field("text"))));
      case "delete": {
        if (!isUuid(id)) return answer({ intent, ok: false, id, error: MEMORY_GONE }, 404);
        const deleted = await database((db) => deleteMemory(db, uid, id));
        return deleted
          ? answer({ intent, ok: true, id, notice: "Memory deleted." })
          : answer({ intent, ok: false, id, error: MEMORY_GONE }, 404);
      }
      case "switch": {
        const enabled = field("enabled") === "on";
        await database((db) => setMemoryEnabled(db, uid, enabled));
        return answer({
          intent,
          ok: true,
          notice: enabled
            ? "Memory is on: the assistant reads and saves memories in your chats."
            : "Memory is off: the assistant neither reads nor saves memories.",
        });
      }
      default:
        return json({ error: "Unknown action." }, { status: 400, headers: NO_STORE });
    }
  } catch (error) {
    if (isAccountDeleted(error)) return json({ error: "This account has been deleted." }, { status: 401 });
    logBackendFault("postgres", "changing memories", error);
    return answer(
      {
        intent: intent as MemoryIntent,
        ok: false,
        id: id || undefined,
        error: "Your memories can't be changed right now. Please try again shortly.",
      },
      503,
    );
  }
}

export const NOT_IN_PLAN = "Memory is not part of your plan, so new memories cannot be added.";

function written(
  intent: "add" | "edit",
  id: string | undefined,
  result: Awaited<ReturnType<typeof addMemory>>,
): Response {
  if (!result.ok) {
    const gone = result.error === MEMORY_GONE;
    return answer({ intent, ok: false, id, error: result.error }, gone ? 404 : 400);
  }
  return answer({ intent, ok: true, id: result.id, notice: intent === "add" ? "Memory saved." : "Memory updated." });
}
