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
import { PROMPT_FIELD_KINDS, type PromptToolField } from "~/db/schema";
import { builtInToolIds } from "~/llm/tools.server";
import { isStorableText, storableString, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";
import { BUILT_IN_PROMPT_TOOLS, type PromptTool } from "./built-in-tools.server";

/**
 * What people type about prompt tools, checked: an admin's tool form, a
 * user's answers to a tool's inputs, and the catalogue page's requests.
 */

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
  systemPrompt: requiredText(
    "The instructions",
    PROMPT_TOOL_LIMITS.systemPrompt,
    "Write the instructions for the assistant.",
  ),
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

// ---- using a tool -------------------------------------------------------------

export type ParsedToolInputs =
  { success: true; message: string } | { success: false; fieldErrors: Record<string, string>; values: string[] };

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
    tool.inputFields.length === 1
      ? answers[0].value
      : answers.map(({ label, value }) => `${label}:\n${value}`).join("\n\n");
  // It is sent as a chat message: the chat endpoint's limit applies.
  if (message.length > MAX_MESSAGE_LENGTH) {
    return {
      success: false,
      fieldErrors: {
        form: `Together your answers are too long: at most ${MAX_MESSAGE_LENGTH.toLocaleString("en")} characters.`,
      },
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
      category: storableString()
        .trim()
        .max(PROMPT_TOOL_LIMITS.category * 2)
        .catch(""),
    })
    .parse({ q: params.get("q") ?? "", category: params.get("category") ?? "" });
}

/** A user's switch for one of the assistant's function tools. */
export const functionSwitchSchema = () =>
  z.object({
    toolId: z.enum(builtInToolIds() as [string, ...string[]], { error: "There is no such function." }),
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
