/** What an empty chat offers to start with: each button sends its prompt as the first message. */
export const STARTER_SUGGESTIONS = [
  {
    label: "Explain a concept",
    prompt: "Explain how public-key cryptography works in simple terms, with an everyday example.",
  },
  {
    label: "Draft an email",
    prompt: "Draft a short, friendly email asking a colleague to move our meeting to next week.",
  },
  { label: "Summarize a text", prompt: "I will paste a text next: summarize it in five bullet points." },
  {
    label: "Plan my day",
    prompt: "Help me plan a focused workday with three priorities, breaks and a short review at the end.",
  },
] as const;

export function StarterSuggestions({ onPick, disabled }: { onPick: (prompt: string) => void; disabled: boolean }) {
  return (
    <ul className="starter-suggestions" aria-label="Suggestions">
      {STARTER_SUGGESTIONS.map((suggestion) => (
        <li key={suggestion.label}>
          <button type="button" className="suggestion" disabled={disabled} onClick={() => onPick(suggestion.prompt)}>
            <span className="suggestion-label">{suggestion.label}</span>
            <span className="suggestion-prompt">{suggestion.prompt}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

/** What the live region says when a reply is done: its first sentence, kept short. */
export function finishedAnnouncement(text: string): string {
  const first =
    text
      .replace(/\s+/g, " ")
      .trim()
      .match(/^.*?[.!?](?=\s|$)/)?.[0] ?? text.replace(/\s+/g, " ").trim();
  const short = first.length > 140 ? `${first.slice(0, 140).trimEnd()}…` : first;
  return short ? `Reply finished: ${short}` : "Reply finished.";
}
