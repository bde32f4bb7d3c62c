/** Words and formats the admin pages share (client-safe). */

export const STATUS_LABELS: Record<string, string> = { new: "New", read: "Read", archived: "Archived" };
export const KIND_LABELS: Record<string, string> = { contact: "Contact", report: "Report" };
export const REASON_LABELS: Record<string, string> = { harmful: "Harmful", wrong: "Wrong", other: "Other" };

/** A stored role as people read it: "" is no role. */
export function roleLabel(role: string): string {
  return role === "" ? "none" : role;
}

/**
 * Times in UTC with a fixed format: the server's render and the browser's
 * hydration agree whatever either's locale or time zone.
 */
export function formatTime(value: string | null | undefined): string {
  if (!value) return "—";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "—";
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function excerpt(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The first message of a field-error map, for a one-line alert. */
export function firstError(errors: Record<string, unknown> | undefined): string {
  const first = Object.values(errors ?? {}).find((value) => typeof value === "string");
  return typeof first === "string" ? first : "Something in the request was not right.";
}
