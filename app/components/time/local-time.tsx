import { useEffect, useState } from "react";

/**
 * A time as the reader's own clock shows it: "4 Mar 2026, 15:06 GMT+1". The
 * server renders it in UTC ("…, 14:06 UTC") and so does the browser's first
 * render, so hydration matches whatever the browser's zone; then the browser
 * switches to its own zone. The machine-readable value stays UTC (dateTime),
 * as do exports.
 */
export type TimeStyle = "date-time" | "date";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function parse(value: string | Date | null | undefined): Date | null {
  if (!value) return null;
  const date = typeof value === "string" ? new Date(value) : value;
  return Number.isNaN(date.getTime()) ? null : date;
}

/** `timeZone` undefined: the browser's (or machine's) own zone. */
export function formatInZone(
  value: string | Date | null | undefined,
  timeZone: string | undefined,
  style: TimeStyle = "date-time",
): string {
  const date = parse(value);
  if (!date) return "—";
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  const day = `${Number(parts.day)} ${MONTHS[Number(parts.month) - 1]} ${parts.year}`;
  if (style === "date") return day;
  return `${day}, ${parts.hour}:${parts.minute} ${parts.timeZoneName}`;
}

export function LocalTime({ value, style = "date-time" }: { value: string | null | undefined; style?: TimeStyle }) {
  // UTC until hydrated: the server knows no reader's zone.
  const [zone, setZone] = useState<string | undefined>("UTC");
  useEffect(() => setZone(undefined), []);
  if (!parse(value)) return <span>—</span>;
  return <time dateTime={value ?? undefined}>{formatInZone(value, zone, style)}</time>;
}
