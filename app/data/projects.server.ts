import { randomUUID } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { conversations, projects } from "~/db/schema";
import { writeForAccount } from "./account-lock.server";
import {
  MAX_PROJECTS,
  PROJECTS_FULL,
  projectInstructionsProblem,
  projectNameProblem,
  tidyProjectName,
} from "./project-rules";

/**
 * Projects (docs/decisions/106): a user's named sets of chats, each with
 * instructions the model follows in every chat of it. Every function takes
 * the owner's uid and looks a project up by id AND owner: another user's
 * project behaves exactly like one that does not exist (null, false, 0).
 */

export interface ProjectSummary {
  id: string;
  name: string;
  instructions: string;
}

/** A refusal fit to show (a bad name, too long instructions, too many projects). */
export class ProjectInputError extends Error {}

const summary = { id: projects.id, name: projects.name, instructions: projects.instructions };

const ownedProject = (uid: string, id: string) => and(eq(projects.id, id), eq(projects.uid, uid));

function checkedName(name: string): string {
  const tidy = tidyProjectName(name);
  const problem = projectNameProblem(tidy);
  if (problem) throw new ProjectInputError(problem);
  return tidy;
}

function checkedInstructions(text: string): string {
  const problem = projectInstructionsProblem(text);
  if (problem) throw new ProjectInputError(problem);
  return text.trim();
}

/** The user's projects, by name (then the order they were made in). */
export async function listProjects(db: Db, uid: string): Promise<ProjectSummary[]> {
  return db
    .select(summary)
    .from(projects)
    .where(eq(projects.uid, uid))
    .orderBy(sql`lower(${projects.name})`, asc(projects.createdAt));
}

export async function getProject(db: Db, uid: string, id: string): Promise<ProjectSummary | null> {
  const [row] = await db.select(summary).from(projects).where(ownedProject(uid, id)).limit(1);
  return row ?? null;
}

/**
 * Makes a project; ProjectInputError for a bad name or instructions, or when
 * the user has MAX_PROJECTS already. The count is checked under the account's
 * lock taken for this user's projects, so two tabs cannot both pass it.
 */
export async function createProject(
  db: Db,
  uid: string,
  input: { name: string; instructions?: string },
): Promise<ProjectSummary> {
  const name = checkedName(input.name);
  const instructions = checkedInstructions(input.instructions ?? "");
  return writeForAccount(db, uid, async (tx) => {
    // Serialises this user's project creations (the account lock is shared among writers).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`projects:${uid}`}))`);
    const [{ count }] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(projects)
      .where(eq(projects.uid, uid));
    if (count >= MAX_PROJECTS) throw new ProjectInputError(PROJECTS_FULL);
    const [row] = await tx.insert(projects).values({ id: randomUUID(), uid, name, instructions }).returning(summary);
    return row;
  });
}

/** Renames; false when the user has no such project. */
export async function renameProject(db: Db, uid: string, id: string, name: string): Promise<boolean> {
  const rows = await db
    .update(projects)
    .set({ name: checkedName(name), updatedAt: sql`now()` })
    .where(ownedProject(uid, id))
    .returning({ id: projects.id });
  return rows.length > 0;
}

/** Replaces the instructions (empty: none); they apply to the next reply of every chat in it. */
export async function setProjectInstructions(db: Db, uid: string, id: string, text: string): Promise<boolean> {
  const rows = await db
    .update(projects)
    .set({ instructions: checkedInstructions(text), updatedAt: sql`now()` })
    .where(ownedProject(uid, id))
    .returning({ id: projects.id });
  return rows.length > 0;
}

/** Renames and replaces the instructions at once (the project dialog); false when the user has no such project. */
export async function updateProject(
  db: Db,
  uid: string,
  id: string,
  input: { name: string; instructions: string },
): Promise<boolean> {
  const rows = await db
    .update(projects)
    .set({
      name: checkedName(input.name),
      instructions: checkedInstructions(input.instructions),
      updatedAt: sql`now()`,
    })
    .where(ownedProject(uid, id))
    .returning({ id: projects.id });
  return rows.length > 0;
}

/** What deleting a project does with its chats. */
export type ProjectChats = "delete" | "move-out";

/**
 * Deletes the project, and with it its chats ("delete") or not ("move-out":
 * they stay, among the loose chats). The ids of the chats deleted, or null
 * when the user has no such project (nothing changed). One transaction: a
 * chat is never left half in a deleted project.
 */
export async function deleteProject(db: Db, uid: string, id: string, chats: ProjectChats): Promise<string[] | null> {
  return db.transaction(async (tx) => {
    const [found] = await tx.select({ id: projects.id }).from(projects).where(ownedProject(uid, id)).for("update");
    if (!found) return null;
    const deleted =
      chats === "delete"
        ? await tx
            .delete(conversations)
            .where(and(eq(conversations.uid, uid), eq(conversations.projectId, id)))
            .returning({ id: conversations.id })
        : [];
    // Moving out is the key's own rule (on delete set null); said here too, so it never depends on it alone.
    await tx
      .update(conversations)
      .set({ projectId: null })
      .where(and(eq(conversations.uid, uid), eq(conversations.projectId, id)));
    await tx.delete(projects).where(ownedProject(uid, id));
    return deleted.map((row) => row.id);
  });
}

/**
 * Puts one of the user's conversations in one of their projects (null: out
 * of any). False when either is not the user's, or the chat is temporary
 * (a temporary chat is never in a project).
 */
export async function moveToProject(
  db: Db,
  uid: string,
  conversationId: string,
  projectId: string | null,
): Promise<boolean> {
  const projectIsTheirs = projectId
    ? sql`exists (select 1 from ${projects} where ${projects.id} = ${projectId}::uuid and ${projects.uid} = ${uid})`
    : undefined;
  const rows = await db
    .update(conversations)
    .set({ projectId })
    .where(
      and(
        eq(conversations.id, conversationId),
        eq(conversations.uid, uid),
        eq(conversations.temporary, false),
        projectIsTheirs,
      ),
    )
    .returning({ id: conversations.id });
  return rows.length > 0;
}
