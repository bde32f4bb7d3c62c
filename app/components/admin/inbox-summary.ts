import { excerpt, REASON_LABELS } from "./labels";

/**
 * How a message reads in one row of the inbox: a subject line (the first
 * line of what the sender wrote; messages have no subject of their own) and
 * a one-line snippet of the rest. Made by the loader, so the list sends the
 * browser a line of each message, not the whole text.
 */

export interface InboxSummary {
  subject: string;
  snippet: string;
}

interface Summarised {
  kind: string;
  body: string;
  reportReason: string | null;
  exchange?: { assistantText: string } | null;
}

function splitFirstLine(text: string): [string, string] {
  const trimmed = text.trim();
  const end = trimmed.search(/\r?\n/);
  return end === -1 ? [trimmed, ""] : [trimmed.slice(0, end), trimmed.slice(end + 1)];
}

export function summarise(message: Summarised): InboxSummary {
  const [first, rest] = splitFirstLine(message.body);
  if (message.kind === "report") {
    const reason = REASON_LABELS[message.reportReason ?? ""] ?? "Report";
    return {
      subject: first ? excerpt(first, 90) : `${reason} reply reported (no comment)`,
      snippet: excerpt(rest || `Reply: ${message.exchange?.assistantText ?? ""}`, 160),
    };
  }
  return { subject: excerpt(first, 90) || "(empty)", snippet: excerpt(rest, 160) };
}

/** The list's filters as a query string, for links that keep the admin's place (j/k, Back). */
export function listSearch(query: { status: string; kind?: string; q?: string }): string {
  const params = new URLSearchParams();
  if (query.status !== "inbox") params.set("status", query.status);
  if (query.kind) params.set("kind", query.kind);
  if (query.q) params.set("q", query.q);
  const text = params.toString();
  return text ? `?${text}` : "";
}
