import { useState } from "react";
import type { ApprovalDecision, ToolApprovalView } from "~/conversation/tool-approval";
import { FormOutcome } from "~/components/form-outcome";

/**
 * A server's tool waiting for the user's approval (docs/decisions/091): the
 * server, the tool and the arguments the model chose (as text, never as
 * HTML), with Approve, Allow for this chat and Deny. The answer is sent to
 * the server; the card changes when the reply hears the decision (in every
 * tab that shows it), so it says what was decided, not what was clicked.
 */
export function ApprovalCard({ approval }: { approval: ToolApprovalView }) {
  const [sending, setSending] = useState<ApprovalDecision | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headingId = `approval-${approval.approvalId}`;

  async function answer(decision: ApprovalDecision) {
    setSending(decision);
    setError(null);
    try {
      const response = await fetch("/api/tool-approvals", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ approvalId: approval.approvalId, decision }),
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { error?: string };
        setError(body.error ?? "Your answer could not be sent. Please try again.");
        setSending(null);
      }
    } catch {
      setError("Your answer could not be sent: check your connection and try again.");
      setSending(null);
    }
  }

  if (approval.status !== "pending") return <p className="approval-outcome">{outcomeText(approval)}</p>;
  return (
    <section className="approval-card" aria-labelledby={headingId}>
      <h3 id={headingId}>
        Allow <strong>{approval.tool}</strong> from {approval.server}?
      </h3>
      <p className="fine-print">The assistant wants to run this tool with:</p>
      <pre className="approval-arguments" tabIndex={0}>
        {JSON.stringify(approval.arguments ?? {}, null, 2)}
      </pre>
      <div className="approval-actions">
        <button type="button" className="button primary" disabled={sending !== null} onClick={() => answer("approve")}>
          Approve
        </button>
        <button type="button" className="button" disabled={sending !== null} onClick={() => answer("allow-chat")}>
          Allow for this chat
        </button>
        <button type="button" className="button secondary" disabled={sending !== null} onClick={() => answer("deny")}>
          Deny
        </button>
      </div>
      <FormOutcome error={error ?? undefined}>
        {sending ? <p className="fine-print">Sending your answer…</p> : null}
      </FormOutcome>
    </section>
  );
}

function outcomeText(approval: ToolApprovalView): string {
  switch (approval.status) {
    case "approved":
      return approval.allowedForChat ? `${approval.tool}: allowed for this chat.` : `${approval.tool}: approved.`;
    case "denied":
      return `${approval.tool}: denied. It was not run.`;
    case "expired":
      return `${approval.tool}: no answer in time. It was not run.`;
    default:
      return `${approval.tool}: not run (the reply was stopped).`;
  }
}
