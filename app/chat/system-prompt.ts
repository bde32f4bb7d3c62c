/**
 * The system prompt of a reply: Nuvara's own, then the conversation's
 * instructions, then its project's (docs/decisions/106), then the user's,
 * then what is remembered about them from earlier chats (docs/decisions/103).
 */
const BASE_PROMPT = [
  "You are Nuvara², a helpful AI assistant.",
  "Format answers in Markdown when it helps: lists, tables, and code blocks tagged with their language.",
  "For arithmetic, the current date and time, and unit conversions, use the tools you are given instead of working them out yourself.",
  "If you are not sure of something, say so.",
].join(" ");

export function systemPrompt({
  conversationPrompt,
  projectInstructions,
  customInstructions,
  memories = [],
}: {
  conversationPrompt?: string | null;
  /** The instructions of the project the chat is in. */
  projectInstructions?: string | null;
  customInstructions?: string | null;
  /** Memories chosen for this reply, the most relevant first. */
  memories?: readonly string[];
}): string {
  const sections = [BASE_PROMPT];
  if (conversationPrompt?.trim()) sections.push(`Instructions for this conversation:\n${conversationPrompt.trim()}`);
  if (projectInstructions?.trim()) {
    sections.push(`Instructions of the project this conversation belongs to:\n${projectInstructions.trim()}`);
  }
  if (customInstructions?.trim()) {
    sections.push(
      `The user's custom instructions (follow them unless they conflict with the above):\n${customInstructions.trim()}`,
    );
  }
  if (memories.length > 0) {
    sections.push(
      "What you remember about the user from earlier chats (use it when it helps; it may be out of date, and what " +
        `the user says now comes first):\n${memories.map((memory) => `- ${memory}`).join("\n")}`,
    );
  }
  return sections.join("\n\n");
}
