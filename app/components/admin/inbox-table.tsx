import { Link } from "@remix-run/react";
import { useEffect, useState, type ChangeEvent } from "react";
import { excerpt, formatTime, KIND_LABELS, REASON_LABELS, STATUS_LABELS } from "./labels";
import { senderLabel } from "./sender-label";

export interface InboxRow {
  id: string;
  kind: string;
  status: string;
  senderEmail: string;
  senderName: string | null;
  senderUid: string | null;
  senderVerified: boolean | null;
  body: string;
  reportReason: string | null;
  createdAt: string;
}

function summary(row: InboxRow): string {
  if (row.kind === "report") {
    const reason = REASON_LABELS[row.reportReason ?? ""] ?? "Report";
    return row.body ? `${reason}: ${row.body}` : `${reason} (no comment)`;
  }
  return row.body;
}

/**
 * One page of the inbox with a checkbox per row, inside the bulk-action form.
 * Text is rendered by React, never as HTML: whatever a sender typed stays text.
 */
export function InboxTable({ messages, search }: { messages: InboxRow[]; search: string }) {
  // "Select all" needs JavaScript; without it, rows are ticked one by one.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);

  function selectAll(event: ChangeEvent<HTMLInputElement>) {
    const form = event.currentTarget.form;
    form?.querySelectorAll<HTMLInputElement>('input[name="ids"]').forEach((box) => {
      box.checked = event.currentTarget.checked;
    });
  }

  return (
    <table className="inbox-table">
      <caption className="visually-hidden">Messages, newest first</caption>
      <thead>
        <tr>
          <th scope="col">
            {hydrated ? <input type="checkbox" aria-label="Select all on this page" onChange={selectAll} /> : <span className="visually-hidden">Select</span>}
          </th>
          <th scope="col">Status</th>
          <th scope="col">Kind</th>
          <th scope="col">From</th>
          <th scope="col">Message</th>
          <th scope="col">Received</th>
        </tr>
      </thead>
      <tbody>
        {messages.map((row) => (
          <tr key={row.id} className={row.status === "new" ? "unread" : undefined}>
            <td>
              <input type="checkbox" name="ids" value={row.id} aria-label={`Select message from ${row.senderEmail}: ${excerpt(row.body, 60)}`} />
            </td>
            <td>
              <span className={`status status-${row.status}`}>{STATUS_LABELS[row.status] ?? row.status}</span>
            </td>
            <td>{KIND_LABELS[row.kind] ?? row.kind}</td>
            <td>
              {row.senderEmail}
              {row.senderName ? <span className="fine-print"> ({row.senderName})</span> : null}
              <span className="fine-print"> ({senderLabel(row)})</span>
            </td>
            <td>
              <Link to={`/admin/messages/${row.id}`} state={{ back: `/admin/messages${search}` }}>
                {excerpt(summary(row)) || "(empty)"}
              </Link>
            </td>
            <td>
              <time dateTime={row.createdAt}>{formatTime(row.createdAt)}</time>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
