/** Words and formats the admin pages share (client-safe). */

export const STATUS_LABELS: Record<string, string> = { new: "New", read: "Read", archived: "Archived" };
export const KIND_LABELS: Record<string, string> = { contact: "Contact", report: "Report" };
export const REASON_LABELS: Record<string, string> = { harmful: "Harmful", wrong: "Wrong", other: "Other" };

export function excerpt(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The first message of a field-error map, for a one-line alert. */
export function firstError(errors: Record<string, unknown> | undefined): string {
  const first = Object.values(errors ?? {}).find((value) => typeof value === "string");
  return typeof first === "string" ? first : "Something in the request was not right.";
}
