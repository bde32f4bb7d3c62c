import { useFetcher } from "@remix-run/react";
import { ThumbIcon } from "./thumb-icon";

export interface FeedbackState {
  conversationId: string;
  /** The owner's stored rating of this reply. */
  rating: 1 | -1 | null;
}

/** 👍/👎 under a stored reply: toggle buttons; pressing the pressed one again takes the rating back. */
export function FeedbackButtons({ messageId, feedback }: { messageId: string; feedback: FeedbackState }) {
  const fetcher = useFetcher<{ ok?: boolean; rating?: 1 | -1 | null; error?: string }>();
  // Shown at once (optimistically) while the rating is on its way, then as stored.
  const pending = fetcher.formData?.get("rating");
  const rating =
    pending != null
      ? pending === "up"
        ? 1
        : pending === "down"
          ? -1
          : null
      : fetcher.data?.ok
        ? (fetcher.data.rating ?? null)
        : feedback.rating;
  const rate = (value: 1 | -1) =>
    fetcher.submit(
      { intent: "feedback", messageId, rating: rating === value ? "none" : value === 1 ? "up" : "down" },
      { method: "post", action: `/nuvara/${feedback.conversationId}` },
    );
  return (
    <>
      <button
        type="button"
        className="chip-button feedback"
        aria-pressed={rating === 1}
        aria-label="Good reply"
        title="Good reply"
        onClick={() => rate(1)}
      >
        <ThumbIcon />
      </button>
      <button
        type="button"
        className="chip-button feedback"
        aria-pressed={rating === -1}
        aria-label="Bad reply"
        title="Bad reply"
        onClick={() => rate(-1)}
      >
        <ThumbIcon down />
      </button>
      {fetcher.data?.error ? (
        <span className="feedback-error" role="alert">
          Your rating could not be saved: {fetcher.data.error}
        </span>
      ) : null}
    </>
  );
}
