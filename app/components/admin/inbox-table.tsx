import { Link, useFetcher, useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent, type MouseEvent } from "react";
import { RelativeTime } from "~/components/time/relative-time";
import { useHydrated } from "~/components/chat/use-hydrated";
import { InboxActionButtons } from "./inbox-action-buttons";
import type { InboxSummary } from "./inbox-summary";
import { firstError, KIND_LABELS, REASON_LABELS } from "./labels";
import { senderLabel } from "./sender-label";

export interface InboxRow extends InboxSummary {
  id: string;
  kind: string;
  status: string;
  senderEmail: string;
  senderName: string | null;
  senderUid: string | null;
  senderVerified: boolean | null;
  reportReason: string | null;
  createdAt: string;
}

/** What the list's action answers (app/routes/admin.messages.tsx). */
export type InboxActionData =
  | { ok: true; intent: string; count: number; notice: string }
  | { confirmDelete: string[] }
  | { fieldErrors: Record<string, string> }
  | { error: string };

const STATUS_AFTER: Record<string, string> = {
  "mark-read": "read",
  "mark-unread": "new",
  archive: "archived",
  unarchive: "read",
};
const VERB: Record<string, string> = {
  "mark-read": "mark them read",
  "mark-unread": "mark them unread",
  archive: "archive them",
  unarchive: "move them back",
  delete: "delete them",
};

/** A short word for a sender whose address is not proven; null for a verified one. */
function unverifiedNote(row: { senderUid: string | null; senderVerified: boolean | null }): string | null {
  if (!row.senderUid) return "typed address, not verified";
  if (row.senderVerified === true) return null;
  return row.senderVerified === false ? "address not verified" : "verification not recorded";
}

function inView(status: string, filter: string): boolean {
  if (filter === "all") return true;
  if (filter === "inbox") return status !== "archived";
  return status === filter;
}

/**
 * One page of the inbox, as a desk: a row per message (sender, subject line,
 * snippet, when), new ones in bold, one link per row (the subject; a click
 * anywhere else on the row follows it too).
 *
 * The bulk buttons act on the ticked rows and answer at once: the rows
 * change as the request leaves (a fetcher's form data), and a failed request
 * puts them back, ticked, and says why. Without JavaScript the same form
 * posts as a page, and deleting asks on the next page instead.
 * Text is rendered by React, never as HTML: whatever a sender typed stays text.
 */
export function InboxTable({
  messages,
  statusFilter,
  linkSearch,
  now,
  empty,
}: {
  messages: InboxRow[];
  /** What an empty list says (the filters decide). */
  empty: string;
  statusFilter: string;
  /** The list's filters, carried to each message so j/k walk this list. */
  linkSearch: string;
  now: string;
}) {
  const hydrated = useHydrated();
  const navigate = useNavigate();
  const fetcher = useFetcher<InboxActionData>({ key: "inbox-bulk" });
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState<string[] | null>(null);
  const submitted = useRef<string[] | null>(null);
  const [lastIntent, setLastIntent] = useState("");

  // While a request is out, the rows show its outcome already.
  const pendingIntent = fetcher.state !== "idle" ? String(fetcher.formData?.get("intent") ?? "") : "";
  const pendingIds = new Set(fetcher.state !== "idle" ? (fetcher.formData?.getAll("ids").map(String) ?? []) : []);
  const rows = messages.flatMap((row) => {
    if (!pendingIds.has(row.id)) return [row];
    if (pendingIntent === "delete") return [];
    const status = STATUS_AFTER[pendingIntent] ?? row.status;
    return inView(status, statusFilter) ? [{ ...row, status }] : [];
  });

  const data = fetcher.state === "idle" ? fetcher.data : undefined;
  const failed = data && ("error" in data || "fieldErrors" in data);
  // A failed request: its rows are back (the loader's data never changed); tick them again.
  useEffect(() => {
    if (failed && submitted.current) {
      const ids = submitted.current;
      setSelected(new Set(ids.filter((id) => messages.some((row) => row.id === id))));
      submitted.current = null;
    }
  }, [failed, messages]);
  // Rows that left the page (another page, a revalidation) cannot stay ticked.
  useEffect(() => {
    setSelected((current) => {
      const kept = [...current].filter((id) => messages.some((row) => row.id === id));
      return kept.length === current.size ? current : new Set(kept);
    });
  }, [messages]);

  function send(intent: string, ids: string[], confirm = false) {
    const form = new FormData();
    form.set("intent", intent);
    for (const id of ids) form.append("ids", id);
    if (confirm) form.set("confirm", "yes");
    submitted.current = ids;
    setLastIntent(intent);
    setSelected(new Set());
    setConfirming(null);
    fetcher.submit(form, { method: "post" });
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const intent = submitter?.value ?? "";
    const ids = [...selected];
    event.preventDefault();
    if (ids.length === 0) return;
    if (intent === "delete") setConfirming(ids);
    else send(intent, ids);
  }

  function toggle(id: string, on: boolean) {
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  function openRow(event: MouseEvent<HTMLTableRowElement>, href: string) {
    // The checkbox, the link and any selection of text keep their own meaning.
    if ((event.target as HTMLElement).closest("a, input, label, button") || window.getSelection()?.toString()) return;
    navigate(href);
  }

  const allTicked = rows.length > 0 && rows.every((row) => selected.has(row.id));
  const count = selected.size;
  const failure =
    data && "error" in data ? data.error : data && "fieldErrors" in data ? firstError(data.fieldErrors) : null;

  const notices = (
    <div aria-live="polite">
      {data && "notice" in data ? (
        <p className="form-notice" role="status">
          {data.notice}
        </p>
      ) : null}
      {failure ? (
        <p className="form-error" role="alert">
          {`Could not ${VERB[lastIntent] ?? "do that"}: ${failure} Nothing was changed.`}
        </p>
      ) : null}
    </div>
  );
  // The last action's answer stays when it emptied the page ("2 messages deleted.").
  if (messages.length === 0) {
    return (
      <>
        {notices}
        <p className="empty">{empty}</p>
      </>
    );
  }

  return (
    <form method="post" className="bulk-form" onSubmit={hydrated ? onSubmit : undefined}>
      <div className="bulk-actions" role="group" aria-label="Actions on selected messages">
        {/* Before hydration (or without JavaScript) the buttons post the form as it is. */}
        <InboxActionButtons
          read="both"
          archived={statusFilter === "archived"}
          busy={false}
          disabled={hydrated && count === 0}
        />
        {hydrated ? (
          <span className="selection-count" aria-live="polite">
            {count === 0 ? "Tick messages to act on them" : `${count} selected`}
          </span>
        ) : null}
      </div>
      {notices}
      {confirming ? (
        <section
          className="confirm-panel"
          role="alertdialog"
          aria-labelledby="confirm-delete-title"
          aria-describedby="confirm-delete-text"
        >
          <h2 id="confirm-delete-title">
            Delete {confirming.length === 1 ? "this message" : `these ${confirming.length} messages`}?
          </h2>
          <p id="confirm-delete-text">Deleting cannot be undone. Archive instead to keep a copy out of the way.</p>
          <div className="actions">
            <button type="button" className="button danger" onClick={() => send("delete", confirming, true)}>
              Yes, delete {confirming.length === 1 ? "this message" : `these ${confirming.length} messages`}
            </button>
            <button type="button" className="button" onClick={() => setConfirming(null)}>
              Cancel
            </button>
          </div>
        </section>
      ) : null}
      <table className="inbox-table">
        <caption className="visually-hidden">Messages, newest first</caption>
        <thead>
          <tr>
            <th scope="col" className="select">
              {hydrated ? (
                <input
                  type="checkbox"
                  aria-label="Select all on this page"
                  checked={allTicked}
                  onChange={(event) =>
                    setSelected(event.currentTarget.checked ? new Set(rows.map((row) => row.id)) : new Set())
                  }
                />
              ) : (
                <span className="visually-hidden">Select</span>
              )}
            </th>
            <th scope="col">From</th>
            <th scope="col">Message</th>
            <th scope="col" className="received">
              Received
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const href = `/admin/messages/${row.id}${linkSearch}`;
            const unread = row.status === "new";
            return (
              <tr key={row.id} className={unread ? "unread" : undefined} onClick={(event) => openRow(event, href)}>
                <td className="select">
                  <input
                    type="checkbox"
                    name="ids"
                    value={row.id}
                    checked={selected.has(row.id)}
                    onChange={(event) => toggle(row.id, event.currentTarget.checked)}
                    aria-label={`Select message from ${row.senderEmail}: ${row.subject}`}
                  />
                </td>
                <td className="sender">
                  {unread ? <span className="unread-mark">New</span> : null}
                  <span className="sender-name">{row.senderName || row.senderEmail}</span>
                  {row.senderName ? <span className="sender-email">{row.senderEmail}</span> : null}
                  {/* Only a verified address is the sender's own (ADR 049): the others say so. */}
                  {unverifiedNote(row) ? (
                    <span className="sender-unverified" title={senderLabel(row)}>
                      {unverifiedNote(row)}
                    </span>
                  ) : null}
                </td>
                <td className="summary">
                  {row.kind === "report" ? (
                    <span className="kind-chip">
                      {KIND_LABELS.report}: {REASON_LABELS[row.reportReason ?? ""] ?? row.reportReason}
                    </span>
                  ) : null}
                  <Link to={href} className="subject" prefetch="none">
                    {row.subject}
                  </Link>
                  {row.snippet ? <span className="snippet">{row.snippet}</span> : null}
                </td>
                <td className="received">
                  <RelativeTime value={row.createdAt} now={now} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 ? <p className="empty">{empty}</p> : null}
    </form>
  );
}
