import { json } from "@remix-run/node";
import type { Db } from "~/db/client.server";
import { PROJECT_NOT_FOUND, TEMPORARY_IN_PROJECT } from "~/data/project-rules";
import {
  createProject,
  deleteProject,
  moveToProject,
  ProjectInputError,
  updateProject,
  type ProjectChats,
} from "~/data/projects.server";
import { isUuid } from "~/ids/uuid";
import { publishConversationEvent } from "./live/conversation-events.server";

/**
 * What the /nuvara routes do with projects (docs/decisions/106): POST /nuvara
 * makes, edits and deletes them; POST /nuvara/<chat> moves a chat in or out.
 * Only the user's own rows are touched: another user's project answers 404
 * like one that does not exist, and bad input a 400 with a message fit to show.
 */

export const PROJECT_INTENTS = ["project-create", "project-edit", "project-delete"] as const;

export function isProjectIntent(intent: unknown): boolean {
  return PROJECT_INTENTS.includes(intent as (typeof PROJECT_INTENTS)[number]);
}

const notFound = () => json({ error: PROJECT_NOT_FOUND }, { status: 404 });

/** POST /nuvara with a project-… intent. */
export async function projectIntent(db: Db, uid: string, form: FormData): Promise<Response> {
  const intent = form.get("intent");
  const name = String(form.get("name") ?? "");
  const instructions = String(form.get("instructions") ?? "");
  try {
    if (intent === "project-create") {
      return json({ ok: true, project: await createProject(db, uid, { name, instructions }) });
    }
    const id = String(form.get("project") ?? "");
    // Not a UUID: no project has that id (and PostgreSQL would refuse to compare).
    if (!isUuid(id)) return notFound();
    if (intent === "project-edit") return await editProject(db, uid, id, name, instructions);
    const chats = form.get("chats");
    if (chats !== "delete" && chats !== "move-out") {
      return json({ error: "Choose whether to delete the project's chats or keep them." }, { status: 400 });
    }
    return await removeProject(db, uid, id, chats);
  } catch (error) {
    if (error instanceof ProjectInputError) return json({ error: error.message }, { status: 400 });
    throw error;
  }
}

/** The name and the instructions, saved together (both checked first). */
async function editProject(db: Db, uid: string, id: string, name: string, instructions: string) {
  return (await updateProject(db, uid, id, { name, instructions })) ? json({ ok: true }) : notFound();
}

async function removeProject(db: Db, uid: string, id: string, chats: ProjectChats) {
  const deleted = await deleteProject(db, uid, id, chats);
  if (!deleted) return notFound();
  // Every open list of the user drops the deleted chats (docs/decisions/086).
  for (const conversationId of deleted) await publishConversationEvent(db, uid, { type: "deleted", conversationId });
  return json({ ok: true, deleted: deleted.length });
}

/**
 * POST /nuvara/<chat> intent=project: the user's conversation (already found)
 * into one of their projects, or out of it (project empty).
 */
export async function moveChatToProject(
  db: Db,
  uid: string,
  conversation: { id: string; temporary: boolean },
  form: FormData,
) {
  if (conversation.temporary) return json({ error: TEMPORARY_IN_PROJECT }, { status: 400 });
  const project = String(form.get("project") ?? "");
  if (project !== "" && !isUuid(project)) return notFound();
  return (await moveToProject(db, uid, conversation.id, project || null)) ? json({ ok: true }) : notFound();
}
