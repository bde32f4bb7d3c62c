import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { promptToolOverrides, promptTools, type PromptToolOverrideRow, type PromptToolRow } from "~/db/schema";
import { isUuid } from "~/ids/uuid";
import { BUILT_IN_PROMPT_TOOLS, findBuiltInPromptTool, type PromptTool } from "./built-in-tools.server";
import type { PromptToolInput } from "./prompt-tool-forms.server";

/**
 * Prompt tools: a ready-made set of instructions (the conversation's system
 * prompt) and a small form whose answers become the first message. Five are
 * built in (their defaults in code, so they exist on a fresh install and can
 * always be reset); admins may edit or hide them (prompt_tool_overrides) and
 * add their own, both stored in PostgreSQL.
 */

function fromRow(row: PromptToolRow): PromptTool {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    category: row.category,
    systemPrompt: row.systemPrompt,
    inputFields: row.inputFields,
    builtIn: false,
    enabled: row.enabled,
    edited: false,
  };
}

/** A built-in tool as an admin left it: its default, with their content and their hide/show switch. */
function withOverride(tool: PromptTool, row: PromptToolOverrideRow | undefined): PromptTool {
  if (!row) return tool;
  const content =
    row.name !== null &&
    row.description !== null &&
    row.category !== null &&
    row.systemPrompt !== null &&
    row.inputFields !== null
      ? {
          name: row.name,
          description: row.description,
          category: row.category,
          systemPrompt: row.systemPrompt,
          inputFields: row.inputFields,
        }
      : null;
  return { ...tool, ...content, enabled: row.enabled, edited: content !== null };
}

async function builtInTools(db: Db): Promise<PromptTool[]> {
  const rows = await db.select().from(promptToolOverrides);
  const byId = new Map(rows.map((row) => [row.toolId, row]));
  return BUILT_IN_PROMPT_TOOLS.map((tool) => withOverride(tool, byId.get(tool.id)));
}

/** Built-in tools first, then admins' tools by category and name. */
export async function listPromptTools(db: Db, { includeDisabled = false } = {}): Promise<PromptTool[]> {
  const builtIns = (await builtInTools(db)).filter((tool) => includeDisabled || tool.enabled);
  const rows = await db
    .select()
    .from(promptTools)
    .where(includeDisabled ? undefined : eq(promptTools.enabled, true))
    .orderBy(asc(promptTools.category), asc(sql`lower(${promptTools.name})`));
  return [...builtIns, ...rows.map(fromRow)];
}

/** Null for an unknown id, including ids that are not even well-formed. */
export async function getPromptTool(db: Db, id: string): Promise<PromptTool | null> {
  const found = findBuiltInPromptTool(id);
  if (found) {
    const [row] = await db.select().from(promptToolOverrides).where(eq(promptToolOverrides.toolId, id));
    return withOverride(found, row);
  }
  if (!isUuid(id)) return null;
  const [row] = await db.select().from(promptTools).where(eq(promptTools.id, id));
  return row ? fromRow(row) : null;
}

/** Every category in use (built-in and admins'), for the admin form's suggestions. */
export async function promptToolCategories(db: Db): Promise<string[]> {
  const rows = await db.selectDistinct({ category: promptTools.category }).from(promptTools);
  const all = new Map<string, string>();
  for (const { category } of [...(await builtInTools(db)), ...rows]) all.set(category.toLowerCase(), category);
  return [...all.values()].sort((a, b) => a.localeCompare(b));
}

export class DuplicateToolNameError extends Error {
  constructor() {
    super("Another tool already has this name.");
  }
}

function isUniqueViolation(error: unknown): boolean {
  const cause = error && typeof error === "object" && "cause" in error ? (error as { cause: unknown }).cause : error;
  return Boolean(
    cause && typeof cause === "object" && "code" in cause && (cause as { code: unknown }).code === "23505",
  );
}

/** "writing" joins the existing "Writing" category instead of starting a second one. */
async function canonicalCategory(db: Db, category: string): Promise<string> {
  const builtInMatch = (await builtInTools(db)).find((tool) => tool.category.toLowerCase() === category.toLowerCase());
  if (builtInMatch) return builtInMatch.category;
  const [row] = await db
    .select({ category: promptTools.category })
    .from(promptTools)
    .where(sql`lower(${promptTools.category}) = ${category.toLowerCase()}`)
    .limit(1);
  return row?.category ?? category;
}

async function guardUnique<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateToolNameError();
    throw error;
  }
}

/**
 * A name another tool shows now: an admin's tool (the unique index catches
 * those on insert too) or a built-in one under its edited name. Checked
 * before writing; two admins saving one new name at the same instant is not
 * guarded against (the catalogue would show two tools with one name).
 */
async function refuseTakenName(db: Db, name: string, ownId: string | null): Promise<void> {
  const lower = name.toLowerCase();
  const builtIns = await builtInTools(db);
  if (builtIns.some((tool) => tool.id !== ownId && tool.name.toLowerCase() === lower))
    throw new DuplicateToolNameError();
  if (ownId !== null && findBuiltInPromptTool(ownId)) {
    const [row] = await db
      .select({ id: promptTools.id })
      .from(promptTools)
      .where(sql`lower(${promptTools.name}) = ${lower}`)
      .limit(1);
    if (row) throw new DuplicateToolNameError();
  }
}

export async function createPromptTool(db: Db, input: PromptToolInput): Promise<PromptTool> {
  await refuseTakenName(db, input.name, null);
  const category = await canonicalCategory(db, input.category);
  const [row] = await guardUnique(
    db
      .insert(promptTools)
      .values({ ...input, category })
      .returning(),
  );
  return fromRow(row);
}

/**
 * A built-in tool edited: its fields keep the default's hints where their
 * label is unchanged (the admin form has no hints of its own).
 */
async function updateBuiltInTool(db: Db, tool: PromptTool, input: PromptToolInput): Promise<PromptTool> {
  await refuseTakenName(db, input.name, tool.id);
  const category = await canonicalCategory(db, input.category);
  const hints = new Map(tool.inputFields.map((field) => [field.label.toLowerCase(), field.hint]));
  const inputFields = input.inputFields.map((field) => {
    const hint = hints.get(field.label.toLowerCase());
    return hint ? { ...field, hint } : field;
  });
  const content = { ...input, category, inputFields, updatedAt: new Date() };
  const [row] = await db
    .insert(promptToolOverrides)
    .values({ toolId: tool.id, ...content })
    .onConflictDoUpdate({ target: promptToolOverrides.toolId, set: content })
    .returning();
  return withOverride(tool, row);
}

/** Null when there is no such tool. */
export async function updatePromptTool(db: Db, id: string, input: PromptToolInput): Promise<PromptTool | null> {
  const builtInTool = findBuiltInPromptTool(id);
  if (builtInTool) return updateBuiltInTool(db, builtInTool, input);
  if (!isUuid(id)) return null;
  await refuseTakenName(db, input.name, id);
  const category = await canonicalCategory(db, input.category);
  const [row] = await guardUnique(
    db
      .update(promptTools)
      .set({ ...input, category, updatedAt: new Date() })
      .where(eq(promptTools.id, id))
      .returning(),
  );
  return row ? fromRow(row) : null;
}

export async function setPromptToolEnabled(db: Db, id: string, enabled: boolean): Promise<boolean> {
  if (findBuiltInPromptTool(id)) {
    // Hiding keeps any edit; the row is created with null content when there is none.
    await db
      .insert(promptToolOverrides)
      .values({ toolId: id, enabled })
      .onConflictDoUpdate({ target: promptToolOverrides.toolId, set: { enabled, updatedAt: new Date() } });
    return true;
  }
  if (!isUuid(id)) return false;
  const rows = await db
    .update(promptTools)
    .set({ enabled, updatedAt: new Date() })
    .where(eq(promptTools.id, id))
    .returning({ id: promptTools.id });
  return rows.length > 0;
}

/**
 * A built-in tool back to its shipped content; whether it is hidden stays as
 * it was. False for any other id (an admin's tool has no default).
 */
export async function resetPromptTool(db: Db, id: string): Promise<boolean> {
  if (!findBuiltInPromptTool(id)) return false;
  await db
    .update(promptToolOverrides)
    .set({
      name: null,
      description: null,
      category: null,
      systemPrompt: null,
      inputFields: null,
      updatedAt: new Date(),
    })
    .where(eq(promptToolOverrides.toolId, id));
  return true;
}

/** Admins' tools only: a built-in tool can be hidden or reset, not deleted. */
export async function deletePromptTool(db: Db, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await db.delete(promptTools).where(eq(promptTools.id, id)).returning({ id: promptTools.id });
  return rows.length > 0;
}
