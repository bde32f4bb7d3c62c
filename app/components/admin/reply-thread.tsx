import { useFetcher } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { RelativeTime } from "~/components/time/relative-time";
import { FormOutcome } from "~/components/form-outcome";

export interface ThreadReply {
  id: string;
  authorEmail: string;
  body: string;
  delivery: string;
  deliveryError: string | null;
  createdAt: string;
}

export type ReplyActionData =
  | { replied: true; delivery: string; notice: string }
  | { replied: true; delivery: "failed"; error: string }
  | { fieldErrors: Record<string, string>; reply?: string }
  | { error: string };

function deliveryText(reply: ThreadReply, to: string): string {
  switch (reply.delivery) {
    case "sent":
      return `Emailed to ${to}.`;
    case "failed":
      return `Not emailed: ${reply.deliveryError ?? "the mail server refused it"}.`;
    case "sending":
      return "Being emailed (or the sending was interrupted).";
    default:
      return "Saved here only: email was not set up when it was written.";
  }
}

/** The admins' replies to a message, oldest first, each saying whether it went out by email. */
export function ReplyThread({ replies, to, now }: { replies: ThreadReply[]; to: string; now: string }) {
  if (replies.length === 0) return null;
  return (
    <ol className="reply-thread" aria-label="Replies">
      {replies.map((reply) => (
        <li key={reply.id} className={`reply delivery-${reply.delivery}`}>
          <p className="reply-meta">
            <strong>{reply.authorEmail}</strong> replied <RelativeTime value={reply.createdAt} now={now} />
          </p>
          {/* Text, as typed: React escapes it. */}
          <p className="message-text">{reply.body}</p>
          <p className="fine-print reply-delivery">{deliveryText(reply, to)}</p>
        </li>
      ))}
    </ol>
  );
}

/**
 * The reply box: saved with the message, and emailed when SMTP_URL is set.
 * A fetcher, so a refused reply keeps what was typed; without JavaScript the
 * page posts and shows the text again with the error.
 */
export function ReplyForm({
  to,
  emailConfigured,
  mailto,
  posted,
}: {
  to: string;
  emailConfigured: boolean;
  mailto: string;
  /** Without JavaScript: the page's own answer to a refused reply (the text comes back). */
  posted?: { reply?: string; error?: string; notice?: string };
}) {
  // No key: the form is keyed by the message, so another message starts with no answer showing.
  const fetcher = useFetcher<ReplyActionData>();
  const formRef = useRef<HTMLFormElement>(null);
  const busy = fetcher.state !== "idle";
  const data = fetcher.state === "idle" ? fetcher.data : undefined;
  useEffect(() => {
    if (data && "replied" in data && data.delivery !== "failed") formRef.current?.reset();
  }, [data]);
  const error =
    data && "fieldErrors" in data
      ? (data.fieldErrors.reply ?? Object.values(data.fieldErrors)[0])
      : data && "error" in data
        ? data.error
        : posted?.error;

  return (
    <fetcher.Form method="post" ref={formRef} className="reply-form" aria-labelledby="reply-title">
      <h2 id="reply-title">Reply</h2>
      <label htmlFor="reply-text">Reply to {to}</label>
      <textarea
        id="reply-text"
        name="reply"
        rows={6}
        defaultValue={posted?.reply}
        maxLength={10_000}
        required
        aria-invalid={error ? true : undefined}
        aria-describedby="reply-help"
      />
      <p id="reply-help" className="fine-print">
        {emailConfigured
          ? `Sent by email to ${to}, with their message quoted, and kept here.`
          : "Email is not set up here (SMTP_URL), so the reply is kept here only: send it from your email app as well."}
      </p>
      <FormOutcome notice={data && "notice" in data ? data.notice : posted?.notice} error={error ?? undefined} />
      <div className="actions">
        <button type="submit" name="intent" value="reply" className="button primary" disabled={busy}>
          {busy ? "Sending…" : emailConfigured ? "Send reply" : "Save reply"}
        </button>
        {emailConfigured ? null : (
          <a className="button" href={mailto}>
            Open in your email app
          </a>
        )}
      </div>
    </fetcher.Form>
  );
}
