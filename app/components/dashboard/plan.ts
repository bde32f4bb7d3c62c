/**
 * The plan a stripeRole stands for, as people read it: no role is the free
 * plan, and any other role (e.g. one a billing integration writes) is shown
 * capitalised.
 */
export function planName(role: string): string {
  const name = role.trim();
  if (name === "" || name === "none") return "Free";
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** Two letters for an avatar without a photo: from the name, else the email. */
export function initials(displayName: string | null, email: string | null): string {
  // By code point, not UTF-16 unit: a name may start with any character.
  const words = (displayName ?? "")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => Array.from(word));
  if (words.length >= 2) return (words[0][0] + words[words.length - 1][0]).toUpperCase();
  if (words.length === 1) return words[0].slice(0, 2).join("").toUpperCase();
  return (Array.from(email ?? "?")[0] ?? "?").toUpperCase();
}
