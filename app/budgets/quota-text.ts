/** How a quota's state reads, on the server (429 answers) and in the composer. */

/** e.g. "00:00 UTC", or "01:00 CET" in the browser's own zone. */
export function formatResetTime(resetsAt: Date, timeZone = "UTC"): string {
  return new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    timeZone,
    timeZoneName: "short",
  }).format(resetsAt);
}

export function quotaExhaustedMessage(limit: number, resetsAt: Date, timeZone?: string): string {
  const count = limit === 1 ? "your 1 message" : `all ${limit} of your messages`;
  return `You've used ${count} for today. Your quota resets at ${formatResetTime(resetsAt, timeZone)}.`;
}

export function remainingText(remaining: number): string {
  return remaining === 1 ? "1 message left today" : `${remaining} messages left today`;
}
