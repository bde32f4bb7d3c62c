/** The system prompt of a reply: Nuvara's own, then the conversation's instructions, then the user's. */
const BASE_PROMPT = [
  "You are Nuvara², a helpful AI assistant.",
  "Format answers in Markdown when it helps: lists, tables, and code blocks tagged with their language.",
  "For arithmetic, the current date and time, and unit conversions, use the tools you are given instead of working them out yourself.",
  "If you are not sure of something, say so.",
].join(" ");

export function systemPrompt({
  conversationPrompt,
  customInstructions,
}: {
  conversationPrompt?: string | null;
  customInstructions?: string | null;
}): string {
  const sections = [BASE_PROMPT];
  if (conversationPrompt?.trim()) sections.push(`Instructions for this conversation:\n${conversationPrompt.trim()}`);
  if (customInstructions?.trim()) {
    sections.push(
      `The user's custom instructions (follow them unless they conflict with the above):\n${customInstructions.trim()}`,
    );
  }
  return sections.join("\n\n");
}
