/**
 * Names and limits shared by the prompt-tool forms (maxLength, counters) and
 * the server's zod schemas, which enforce them.
 */
export const PROMPT_TOOL_LIMITS = {
  name: 60,
  description: 200,
  category: 30,
  systemPrompt: 4_000,
  fieldLabel: 40,
  /** Inputs a tool's form may have. */
  fields: 5,
} as const;

/** What a user may type into a prompt tool's inputs (all of them together: a chat message's limit). */
export const TOOL_INPUT_LIMITS = {
  line: 300,
  text: 8_000,
} as const;

/** Form field names of the admin form's input row `index`: `field0Label`, `field0Kind`, `field0Required`. */
export function promptFieldName(index: number, part: "Label" | "Kind" | "Required") {
  return `field${index}${part}`;
}

/** Form field name of a prompt tool's input `index` on its page. */
export function toolInputName(index: number) {
  return `input${index}`;
}

/** The admin form as typed: sent back with field errors so nothing is lost. */
export interface PromptToolFormValues {
  name: string;
  description: string;
  category: string;
  systemPrompt: string;
  fields: Array<{ label: string; kind: string; required: boolean }>;
}
