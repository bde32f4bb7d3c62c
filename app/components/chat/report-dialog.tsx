import { useState, type FormEvent } from "react";
import { Dialog } from "./dialog";

const REASONS = [
  { value: "harmful", label: "Harmful or unsafe" },
  { value: "wrong", label: "Wrong or misleading" },
  { value: "other", label: "Something else" },
] as const;

type State =
  { kind: "idle" } | { kind: "sending" } | { kind: "sent"; message: string } | { kind: "failed"; message: string };

async function failureText(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: string; fieldErrors?: Record<string, string[] | string> };
    if (body.error) return body.error;
    const first = body.fieldErrors ? Object.values(body.fieldErrors).flat()[0] : undefined;
    if (first) return first;
  } catch {
    // Not JSON: fall through to the general message.
  }
  return response.status === 404
    ? "Reporting isn't available right now."
    : "The report couldn't be sent. Please try again.";
}

/** "Report" on a reply: a reason and a comment, sent to the admins' inbox (POST /api/reports). */
export function ReportDialog({ messageId, onClose }: { messageId: string | null; onClose: () => void }) {
  const [state, setState] = useState<State>({ kind: "idle" });
  const [reason, setReason] = useState<(typeof REASONS)[number]["value"]>("wrong");
  const [comment, setComment] = useState("");

  function close() {
    setState({ kind: "idle" });
    setComment("");
    onClose();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setState({ kind: "sending" });
    try {
      const response = await fetch("/api/reports", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ messageId, reason, comment }),
      });
      if (response.status === 201) {
        const body = (await response.json().catch(() => ({}))) as { message?: string };
        setState({ kind: "sent", message: body.message ?? "Thanks! Your report was sent to the admins." });
      } else {
        setState({ kind: "failed", message: await failureText(response) });
      }
    } catch {
      setState({ kind: "failed", message: "The connection was lost. Please try again." });
    }
  }

  return (
    <Dialog open={messageId !== null} onClose={close} title="Report this reply">
      {state.kind === "sent" ? (
        <>
          <p role="status">{state.message}</p>
          <div className="dialog-actions">
            <button type="button" className="button primary" onClick={close}>
              Close
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={submit} className="dialog-form">
          <p className="fine-print">The admins will see this reply and the message it answered.</p>
          <fieldset>
            <legend>Reason</legend>
            {REASONS.map((option) => (
              <label key={option.value} className="radio">
                <input
                  type="radio"
                  name="reason"
                  value={option.value}
                  checked={reason === option.value}
                  onChange={() => setReason(option.value)}
                />
                {option.label}
              </label>
            ))}
          </fieldset>
          <label>
            Comment (optional)
            <textarea value={comment} maxLength={2_000} rows={4} onChange={(event) => setComment(event.target.value)} />
          </label>
          {state.kind === "failed" ? (
            <p className="form-error" role="alert">
              {state.message}
            </p>
          ) : null}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={close}>
              Cancel
            </button>
            <button type="submit" className="button primary" disabled={state.kind === "sending"}>
              {state.kind === "sending" ? "Sending…" : "Send report"}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
