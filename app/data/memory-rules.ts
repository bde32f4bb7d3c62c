import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";

/**
 * The bounds of memory across chats (docs/decisions/103), shared by the
 * memory page's forms and the server: how many memories one user keeps, how
 * long each may be, and how much of them a reply's system prompt takes.
 */
export const MAX_MEMORIES = 100;
export const MAX_MEMORY_LENGTH = 500;
/** Characters of memories put into one reply's system prompt, the most relevant first. */
export const MEMORY_PROMPT_BUDGET = 2_000;

export const MEMORY_FULL = `Memory is full (${MAX_MEMORIES} memories, the most allowed). Delete some you no longer need to save new ones.`;

/** The problem with a memory's text, in words fit to show (and to tell the model), or null when it can be saved. */
export function memoryTextProblem(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed) return "Write the memory first: it is empty.";
  if (!isStorableText(trimmed)) return UNSTORABLE_TEXT_MESSAGE;
  if (trimmed.length > MAX_MEMORY_LENGTH)
    return `Please keep a memory to ${MAX_MEMORY_LENGTH} characters or fewer (this one has ${trimmed.length.toLocaleString("en-US")}).`;
  return null;
}
