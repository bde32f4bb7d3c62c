/**
 * The current date and time in a given IANA time zone, for the
 * `current_datetime` tool. Models have no clock and a stale sense of "today",
 * so they need both the local wall time and the weekday spelled out.
 */

export interface CurrentDateTime {
  /** Local time with its UTC offset, e.g. "2024-03-10T15:30:00+01:00". */
  iso: string;
  /** The same instant in UTC, e.g. "2024-03-10T14:30:00.000Z". */
  utc: string;
  /** e.g. "Sunday, March 10, 2024 at 3:30:00 PM GMT+1". */
  human: string;
  /** The IANA zone actually used. */
  timeZone: string;
  utcOffset: string;
  weekday: string;
  /** Set when the requested zone could not be used, so the model can tell the user. */
  note?: string;
}

/** Whether Intl knows this IANA time zone name. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Describes `now` in `timeZone`; an unknown or missing zone falls back to UTC and says so in `note`. */
export function describeDateTime(now: Date, timeZone: string | undefined): CurrentDateTime {
  const requested = timeZone?.trim();
  let zone = "UTC";
  let note: string | undefined;
  if (!requested) {
    note = "The user's time zone is not known; this is UTC.";
  } else if (isValidTimeZone(requested)) {
    // Kept as spelled: ICU would rename some zones to legacy ids (Asia/Kolkata to Asia/Calcutta).
    zone = requested;
  } else {
    note = `"${requested}" is not a valid IANA time zone; this is UTC instead.`;
  }

  const parts = localParts(now, zone);
  const offsetMinutes = Math.round(
    (Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) -
      Math.floor(now.getTime() / 1000) * 1000) /
      60_000,
  );
  const utcOffset = formatOffset(offsetMinutes);
  const date = `${pad(parts.year, 4)}-${pad(parts.month)}-${pad(parts.day)}`;
  const time = `${pad(parts.hour)}:${pad(parts.minute)}:${pad(parts.second)}`;

  return {
    iso: `${date}T${time}${utcOffset}`,
    utc: now.toISOString(),
    human: new Intl.DateTimeFormat("en-US", { timeZone: zone, dateStyle: "full", timeStyle: "long" }).format(now),
    timeZone: zone,
    utcOffset,
    weekday: parts.weekday,
    ...(note ? { note } : {}),
  };
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: string;
}

function localParts(now: Date, timeZone: string): LocalParts {
  const formatter = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
    hourCycle: "h23",
    weekday: "long",
  });
  const parts = formatter.formatToParts(now);
  const value = (type: Intl.DateTimeFormatPartTypes) => parts.find((part) => part.type === type)?.value ?? "";
  return {
    year: Number(value("year")),
    month: Number(value("month")),
    day: Number(value("day")),
    hour: Number(value("hour")),
    minute: Number(value("minute")),
    second: Number(value("second")),
    weekday: value("weekday"),
  };
}

function formatOffset(totalMinutes: number): string {
  const sign = totalMinutes < 0 ? "-" : "+";
  const minutes = Math.abs(totalMinutes);
  return `${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}
