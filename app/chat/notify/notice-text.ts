/**
 * What a notice says (docs/decisions/101): the chat's title and what
 * happened — and the reply's first words only for a user who opted in to
 * previews. Nothing else of the chat leaves the server in a notice.
 */

export type NoticeOccasion = "completed" | "failed" | "interrupted" | "approval";

const HEADLINES: Record<NoticeOccasion, string> = {
  completed: "Your reply is ready",
  failed: "Your reply could not be finished",
  interrupted: "Your reply was interrupted",
  approval: "A tool is waiting for your approval",
};

/** Long enough to recognise the reply, short enough for a lock screen. */
export const PREVIEW_CHARS = 160;

export interface NoticeText {
  /** The chat's title (the notification's title). */
  title: string;
  headline: string;
  /** The reply's first words, when opted in and there are any; else undefined. */
  preview?: string;
  /** The notification's body: the preview, or the headline. */
  body: string;
}

export function noticeText(
  occasion: NoticeOccasion,
  facts: { title: string | null; replyText: string },
  preview: boolean,
): NoticeText {
  const headline = HEADLINES[occasion];
  const title = facts.title?.trim() || "New chat";
  const words = preview && occasion !== "approval" ? firstWords(facts.replyText) : "";
  return { title, headline, preview: words || undefined, body: words || `${headline}.` };
}

function firstWords(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= PREVIEW_CHARS) return flat;
  return `${flat.slice(0, PREVIEW_CHARS - 1).replace(/\s+\S*$/, "")}…`;
}
