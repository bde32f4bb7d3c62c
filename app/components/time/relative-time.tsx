import { useEffect, useState } from "react";

/**
 * "5 min ago", with the exact time in a tooltip. The server renders it
 * against `now` from the loader and the exact time in UTC, so hydration
 * matches whatever the browser's clock or zone; once hydrated, the browser
 * counts on from its own clock (every minute) and the tooltip shows its own
 * time zone.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export function relativeTime(at: number, now: number): string {
  const ago = now - at;
  if (ago < MINUTE) return "just now";
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < DAY) {
    const hours = Math.floor(ago / HOUR);
    return `${hours} hour${hours === 1 ? "" : "s"} ago`;
  }
  if (ago < 2 * DAY) return "yesterday";
  if (ago < 7 * DAY) return `${Math.floor(ago / DAY)} days ago`;
  const date = new Date(at);
  const sameYear = date.getUTCFullYear() === new Date(now).getUTCFullYear();
  return date.toLocaleDateString("en", {
    day: "numeric",
    month: "short",
    year: sameYear ? undefined : "numeric",
    timeZone: "UTC",
  });
}

export function exactTime(at: number, timeZone?: string): string {
  // dateStyle/timeStyle cannot be combined with timeZoneName: the fields one by one.
  return new Date(at).toLocaleString("en", {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone,
    timeZoneName: "short",
  });
}

export function RelativeTime({ value, now }: { value: string; now: string | number }) {
  const at = Date.parse(value);
  const [clock, setClock] = useState<{ now: number; zone?: string }>({
    now: typeof now === "number" ? now : Date.parse(now),
    zone: "UTC",
  });
  useEffect(() => {
    const tick = () => setClock({ now: Date.now(), zone: undefined });
    tick();
    const timer = setInterval(tick, MINUTE);
    return () => clearInterval(timer);
  }, []);
  if (Number.isNaN(at)) return <span>—</span>;
  const exact = exactTime(at, clock.zone);
  return (
    <time dateTime={value} title={exact}>
      {relativeTime(at, clock.now)}
    </time>
  );
}

/** The exact time: in UTC from the server, in the browser's own zone once hydrated. */
export function ExactTime({ value }: { value: string }) {
  const [zone, setZone] = useState<string | undefined>("UTC");
  useEffect(() => setZone(undefined), []);
  const at = Date.parse(value);
  return <time dateTime={value}>{Number.isNaN(at) ? "—" : exactTime(at, zone)}</time>;
}
