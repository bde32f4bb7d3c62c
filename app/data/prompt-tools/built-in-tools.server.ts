import type { PromptToolField } from "~/db/schema";

/**
 * The prompt tools every install has: their defaults live in code, so they
 * exist on a fresh install and can always be reset (admins' edits are stored
 * beside them, app/data/prompt-tools/prompt-tools.server.ts).
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
      {
        label: "Length or focus",
        kind: "line",
        required: false,
        hint: "For example: three bullets, or only the costs",
      },
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

/** A built-in tool's default, as shipped (admins' edits not applied). */
export function findBuiltInPromptTool(id: string): PromptTool | undefined {
  return BUILT_IN_PROMPT_TOOLS.find((tool) => tool.id === id);
}
