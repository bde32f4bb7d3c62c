/**
 * Days, durations and numbers as the dashboard shows them, in a fixed format
 * so the server's render and the browser's hydration agree whatever either's
 * locale. Days are UTC days (as quota days are); a moment (last sign-in, a
 * link's creation) is shown in the reader's own zone by
 * ~/components/time/local-time.tsx, whose first render matches these UTC forms.
 */
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function parse(value: string | Date | null | undefined): Date | null {
  if (!value) return null;
  const date = typeof value === "string" ? new Date(value) : value;
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "4 Mar 2025" */
export function formatDate(value: string | Date | null | undefined): string {
  const date = parse(value);
  if (!date) return "—";
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

/** "4 Mar 2025, 14:05 UTC" */
export function formatDateTime(value: string | Date | null | undefined): string {
  const date = parse(value);
  if (!date) return "—";
  const time = `${String(date.getUTCHours()).padStart(2, "0")}:${String(date.getUTCMinutes()).padStart(2, "0")}`;
  return `${formatDate(date)}, ${time} UTC`;
}

/** A UTC day ("2025-03-04") as "4 Mar". */
export function formatDay(day: string): string {
  const [, month, date] = day.split("-").map(Number);
  return `${date} ${MONTHS[month - 1]}`;
}

/** "5 h 12 min", "12 min", "less than a minute" */
export function formatDuration(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "less than a minute";
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

export function formatNumber(value: number): string {
  return value.toLocaleString("en-US");
}

/** "1 message", "3 messages" */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}
