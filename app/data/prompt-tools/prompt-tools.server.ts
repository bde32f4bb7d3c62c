import { json, redirect } from "@remix-run/node";
import { asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import {
  PROMPT_TOOL_LIMITS,
  promptFieldName,
  TOOL_INPUT_LIMITS,
  toolInputName,
  type PromptToolFormValues,
} from "~/data/prompt-tools/form-fields";
import { MAX_MESSAGE_LENGTH } from "~/conversation/chat-request";
import { SEARCH_MAX_LENGTH, type CatalogueFilters } from "~/data/prompt-tools/catalogue";
import { getConfig } from "~/config.server";
import { readBody } from "~/http/forms.server";
import { getDb, type Db } from "~/db/client.server";
import {
  PROMPT_FIELD_KINDS,
  promptToolOverrides,
  promptTools,
  type PromptToolField,
  type PromptToolOverrideRow,
  type PromptToolRow,
} from "~/db/schema";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { BUILT_IN_TOOL_IDS } from "~/llm/tools.server";
import { isStorableText, storableString, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";
import { isUuid } from "~/ids/uuid";

/**
 * Prompt tools: a ready-made set of instructions (the conversation's system
 * prompt) and a small form whose answers become the first message. Five are
 * built in (their defaults in code, so they exist on a fresh install and can
 * always be reset); admins may edit or hide them (prompt_tool_overrides) and
 * add their own, both stored in PostgreSQL.
 */

export interface PromptTool {
  /** A slug for built-in tools, a uuid for admin-defined ones. */
  id: string;
  name: string;
  description: string;
  category: string;
  systemPrompt: string;
  inputFields: PromptToolField[];
  builtIn: boolean;
  enabled: boolean;
  /** A built-in tool whose content an admin changed (it can be reset to its default). */
  edited: boolean;
}

const builtIn = (tool: Omit<PromptTool, "builtIn" | "enabled" | "edited">): PromptTool => ({
  ...tool,
  builtIn: true,
  enabled: true,
  edited: false,
});

export const BUILT_IN_PROMPT_TOOLS: readonly PromptTool[] = [
  builtIn({
    id: "summarize",
    name: "Summarize",
    description: "Condense a long text into its gist and key points.",
    category: "Writing",
    systemPrompt:
      "You summarize texts. Reply with one sentence that gives the gist, then the key points as a short bulleted list. " +
      "Keep names, numbers and dates exactly as written and add nothing that is not in the text. " +
      "If the user asks for a length or a focus, follow it.",
    inputFields: [
      { label: "Text to summarize", kind: "text", required: true },
      { label: "Length or focus", kind: "line", required: false, hint: "For example: three bullets, or only the costs" },
    ],
  }),
  builtIn({
    id: "translate",
    name: "Translate",
    description: "Translate a text into another language, keeping its meaning and tone.",
    category: "Language",
    systemPrompt:
      "You are a careful translator. Translate the user's text into the language they name, keeping its meaning, " +
      "tone and formatting. Reply with the translation only; if a phrase has no exact equivalent, add a one-line note after it.",
    inputFields: [
      { label: "Text to translate", kind: "text", required: true },
      { label: "Translate into", kind: "line", required: true, hint: "A language, for example French" },
    ],
  }),
  builtIn({
    id: "improve-writing",
    name: "Improve writing",
    description: "Fix grammar and spelling and make a text clearer, without changing what it says.",
    category: "Writing",
    systemPrompt:
      "You are an editor. Rewrite the user's text so it is correct, clear and concise, keeping its meaning, " +
      "its language and the author's voice. Reply with the improved text, then list the main changes in a few bullets.",
    inputFields: [
      { label: "Your text", kind: "text", required: true },
      { label: "Tone", kind: "line", required: false, hint: "For example: friendly, or formal" },
    ],
  }),
  builtIn({
    id: "explain-code",
    name: "Explain code",
    description: "Walk through what a piece of code does, step by step, and point out pitfalls.",
    category: "Code",
    systemPrompt:
      "You explain code to a developer. Say in one or two sentences what the code does, then walk through it step by step, " +
      "name the language and any libraries it uses, and point out bugs, edge cases or risks you notice. " +
      "Quote code in fenced blocks. If the user asks a question about it, answer that first.",
    inputFields: [
      { label: "Code", kind: "text", required: true },
      { label: "Your question", kind: "line", required: false },
    ],
  }),
  builtIn({
    id: "draft-email",
    name: "Draft an email",
    description: "Write an email from a few notes: who it is for and what it should say.",
    category: "Writing",
    systemPrompt:
      "You write emails. From the user's notes, draft a complete email with a subject line, a greeting, a clear body " +
      "and a sign-off. Match the requested tone (polite and professional if none is given), keep it short, " +
      "and never invent facts, dates or promises that are not in the notes.",
    inputFields: [
      { label: "Who it is for", kind: "line", required: true },
      { label: "What it should say", kind: "text", required: true },
      { label: "Tone", kind: "line", required: false, hint: "Polite and professional if left empty" },
    ],
  }),
];

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
    row.name !== null && row.description !== null && row.category !== null && row.systemPrompt !== null && row.inputFields !== null
      ? { name: row.name, description: row.description, category: row.category, systemPrompt: row.systemPrompt, inputFields: row.inputFields }
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

/** A built-in tool's default, as shipped (admins' edits not applied). */
export function findBuiltInPromptTool(id: string): PromptTool | undefined {
  return BUILT_IN_PROMPT_TOOLS.find((tool) => tool.id === id);
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

// ---- what admins type -------------------------------------------------------

export interface PromptToolInput {
  name: string;
  description: string;
  category: string;
  systemPrompt: string;
  inputFields: PromptToolField[];
}

const asText = (value: unknown) => (typeof value === "string" ? value : "");

/** `what` names the field in messages ("The name must be…"); `missing` says what to do when it is empty. */
const requiredText = (what: string, max: number, missing: string) =>
  z.preprocess(
    asText,
    z
      .string()
      // NUL or a lone surrogate: the insert would fail, a 500 instead of a message (docs/security.md).
      .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE)
      .transform((value) => value.trim().replace(/\r\n/g, "\n"))
      .pipe(z.string().min(1, missing).max(max, `${what} must be at most ${max} characters.`)),
  );

const oneLine = (what: string, max: number, missing: string) =>
  requiredText(what, max, missing).pipe(
    z
      .string()
      .transform((value) => value.replace(/\s+/g, " "))
      // eslint-disable-next-line no-control-regex
      .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), `${what} contains characters that are not allowed.`),
  );

const promptToolSchema = z.object({
  name: oneLine("The name", PROMPT_TOOL_LIMITS.name, "Enter a name."),
  description: oneLine("The description", PROMPT_TOOL_LIMITS.description, "Enter a description."),
  category: oneLine("The category", PROMPT_TOOL_LIMITS.category, "Enter a category."),
  systemPrompt: requiredText("The instructions", PROMPT_TOOL_LIMITS.systemPrompt, "Write the instructions for the assistant."),
  inputFields: z
    .array(
      z.object({
        label: oneLine("An input's label", PROMPT_TOOL_LIMITS.fieldLabel, "Enter a label."),
        kind: z.enum(PROMPT_FIELD_KINDS, { error: "Choose a kind of input." }),
        required: z.boolean(),
      }),
    )
    .min(1, "Add at least one input, for example “Text”.")
    .max(PROMPT_TOOL_LIMITS.fields, `A tool has at most ${PROMPT_TOOL_LIMITS.fields} inputs.`)
    .refine(
      (fields) => new Set(fields.map((field) => field.label.toLowerCase())).size === fields.length,
      "Two inputs have the same label.",
    ),
});

export function formValues(fields: Record<string, unknown>): PromptToolFormValues {
  return {
    name: asText(fields.name),
    description: asText(fields.description),
    category: asText(fields.category),
    systemPrompt: asText(fields.systemPrompt),
    fields: Array.from({ length: PROMPT_TOOL_LIMITS.fields }, (_, index) => ({
      label: asText(fields[promptFieldName(index, "Label")]),
      kind: asText(fields[promptFieldName(index, "Kind")]) || "text",
      required: fields[promptFieldName(index, "Required")] === "on",
    })),
  };
}

/** An existing tool as the edit form shows it. */
export function toolFormValues(tool: PromptTool): PromptToolFormValues {
  return {
    name: tool.name,
    description: tool.description,
    category: tool.category,
    systemPrompt: tool.systemPrompt,
    fields: tool.inputFields.map((field) => ({ label: field.label, kind: field.kind, required: field.required })),
  };
}

export type ParsedPromptTool =
  | { success: true; data: PromptToolInput }
  | { success: false; fieldErrors: Record<string, string>; values: PromptToolFormValues };

/**
 * Validates the admin form: 5 input rows, of which rows with a blank label
 * are left out. `toolId`: the tool being edited, which may keep its own
 * built-in name (no other tool may take a built-in tool's default name).
 */
export function parsePromptToolForm(fields: Record<string, unknown>, toolId?: string): ParsedPromptTool {
  const values = formValues(fields);
  const rows = values.fields.filter((field) => field.label.trim() !== "");
  const parsed = promptToolSchema.safeParse({ ...values, inputFields: rows });
  if (parsed.success) {
    const name = parsed.data.name.toLowerCase();
    if (BUILT_IN_PROMPT_TOOLS.some((tool) => tool.id !== toolId && tool.name.toLowerCase() === name)) {
      return { success: false, fieldErrors: { name: "A built-in tool already has this name." }, values };
    }
    return { success: true, data: parsed.data };
  }
  const fieldErrors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const [key, row] = issue.path;
    // Errors of one input row point at that row's label in the form.
    const name =
      key === "inputFields" && typeof row === "number"
        ? promptFieldName(values.fields.indexOf(rows[row]), issue.path[2] === "kind" ? "Kind" : "Label")
        : key === "inputFields"
          ? "inputFields"
          : String(key ?? "form");
    fieldErrors[name] ??= issue.message;
  }
  return { success: false, fieldErrors, values };
}

// ---- storage ------------------------------------------------------------------

/**
 * Runs `work` on the database within the backends' deadline. A fault is
 * logged and thrown as a 503 Response (pages that can do without catch it);
 * the tools' own errors (a duplicate name) pass through.
 */
export async function toolStore<T>(work: (db: Db) => Promise<T>): Promise<T> {
  try {
    return await withDeadline("postgres", getConfig().backendTimeoutMs, getDb().then(work));
  } catch (error) {
    if (error instanceof DuplicateToolNameError) throw error;
    logBackendFault("postgres", "reading or writing tools", error);
    throw json(
      { error: "Tools and their settings are unavailable right now. Please try again shortly." },
      { status: 503, headers: { "Cache-Control": "no-store" } },
    );
  }
}

const NO_STORE = { "Cache-Control": "no-store" };

export function promptToolNotFound() {
  return json(
    { error: "There is no such prompt tool." },
    { status: 404, headers: NO_STORE },
  );
}

/**
 * The admin's create and edit actions (after requireAdmin): a capped body,
 * validation (400 with field errors and what was typed), the save, and a
 * duplicate name as 409 on the name field. `save` answering null is a 404.
 */
export async function savePromptToolForm(
  request: Request,
  save: (db: Db, input: PromptToolInput) => Promise<PromptTool | null>,
  toolId?: string,
) {
  const body = await readBody(request, BODY_LIMITS.document);
  // Thrown, not returned: the form pages show no action `error`, their error boundary does.
  if ("refusal" in body) throw body.refusal;
  const parsed = parsePromptToolForm(body.fields, toolId);
  if (!parsed.success) return json({ values: parsed.values, fieldErrors: parsed.fieldErrors }, { status: 400, headers: NO_STORE });
  try {
    const tool = await toolStore((db) => save(db, parsed.data));
    if (!tool) throw promptToolNotFound();
    return redirect(`/tools?saved=${tool.id}`, { status: 303, headers: NO_STORE });
  } catch (error) {
    if (error instanceof DuplicateToolNameError) {
      return json({ values: formValues(body.fields), fieldErrors: { name: error.message } }, { status: 409, headers: NO_STORE });
    }
    throw error;
  }
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
  return Boolean(cause && typeof cause === "object" && "code" in cause && (cause as { code: unknown }).code === "23505");
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
  if (builtIns.some((tool) => tool.id !== ownId && tool.name.toLowerCase() === lower)) throw new DuplicateToolNameError();
  if (ownId !== null && findBuiltInPromptTool(ownId)) {
    const [row] = await db.select({ id: promptTools.id }).from(promptTools).where(sql`lower(${promptTools.name}) = ${lower}`).limit(1);
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
    .set({ name: null, description: null, category: null, systemPrompt: null, inputFields: null, updatedAt: new Date() })
    .where(eq(promptToolOverrides.toolId, id));
  return true;
}

/** Admins' tools only: a built-in tool can be hidden or reset, not deleted. */
export async function deletePromptTool(db: Db, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await db.delete(promptTools).where(eq(promptTools.id, id)).returning({ id: promptTools.id });
  return rows.length > 0;
}

// ---- using a tool -------------------------------------------------------------

export type ParsedToolInputs =
  | { success: true; message: string }
  | { success: false; fieldErrors: Record<string, string>; values: string[] };

/**
 * Checks what the user typed into a tool's form and composes the first
 * message: the answers under their labels (a lone input is sent as it is).
 */
export function parseToolInputs(tool: PromptTool, fields: Record<string, unknown>): ParsedToolInputs {
  const values = tool.inputFields.map((_, index) => asText(fields[toolInputName(index)]));
  const fieldErrors: Record<string, string> = {};
  const answers: Array<{ label: string; value: string }> = [];
  tool.inputFields.forEach((field, index) => {
    const value = values[index].replace(/\r\n/g, "\n").trim();
    const max = TOOL_INPUT_LIMITS[field.kind];
    if (!isStorableText(value)) fieldErrors[toolInputName(index)] = UNSTORABLE_TEXT_MESSAGE;
    else if (field.required && value === "") fieldErrors[toolInputName(index)] = `Fill in “${field.label}”.`;
    else if (value.length > max) {
      fieldErrors[toolInputName(index)] = `“${field.label}” must be at most ${max.toLocaleString("en")} characters.`;
    } else if (value !== "") answers.push({ label: field.label, value });
  });
  if (Object.keys(fieldErrors).length === 0 && answers.length === 0) {
    fieldErrors[toolInputName(0)] = `Fill in “${tool.inputFields[0]?.label ?? "the first input"}”.`;
  }
  if (Object.keys(fieldErrors).length > 0) return { success: false, fieldErrors, values };
  const message =
    tool.inputFields.length === 1 ? answers[0].value : answers.map(({ label, value }) => `${label}:\n${value}`).join("\n\n");
  // It is sent as a chat message: the chat endpoint's limit applies.
  if (message.length > MAX_MESSAGE_LENGTH) {
    return {
      success: false,
      fieldErrors: { form: `Together your answers are too long: at most ${MAX_MESSAGE_LENGTH.toLocaleString("en")} characters.` },
      values,
    };
  }
  return { success: true, message };
}

// ---- the catalogue page's requests ------------------------------------------------

/** Search and category from the URL; anything odd counts as no filter. */
export function parseCatalogueFilters(params: URLSearchParams): CatalogueFilters {
  return z
    .object({
      // Text that cannot be stored matches nothing and would fail the query: no filter (docs/security.md).
      q: storableString().trim().max(SEARCH_MAX_LENGTH).catch(""),
      category: storableString().trim().max(PROMPT_TOOL_LIMITS.category * 2).catch(""),
    })
    .parse({ q: params.get("q") ?? "", category: params.get("category") ?? "" });
}

/** A user's switch for one of the assistant's function tools. */
export const functionSwitchSchema = () =>
  z.object({
    toolId: z.enum(BUILT_IN_TOOL_IDS as [string, ...string[]], { error: "There is no such function." }),
    enabled: z.enum(["on", "off"], { error: "Say whether to switch it on or off." }),
  });

/**
 * An admin's action on one tool: an admin-defined one (a uuid) or a built-in
 * one (its slug; those are reset, not deleted). Deleting and resetting wait
 * for `confirm=yes`.
 */
export const adminToolActionSchema = () =>
  z.object({
    intent: z.enum(["enable", "disable", "delete", "reset"]),
    id: z.union([z.uuid(), z.enum(BUILT_IN_PROMPT_TOOLS.map((tool) => tool.id) as [string, ...string[]])], {
      error: "There is no such tool.",
    }),
    confirm: z.literal("yes").optional(),
  });
