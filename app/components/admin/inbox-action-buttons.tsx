/**
 * The admin inbox's actions, as submit buttons named `intent`: for one
 * message (its state decides between Mark read and Mark unread, Archive and
 * Move to inbox) or for a selection (both read buttons; the list's tab
 * decides the archive button).
 */
export function InboxActionButtons({
  read,
  archived,
  busy,
  disabled = false,
}: {
  /** Which read button(s) to offer. */
  read: "mark-read" | "mark-unread" | "both";
  archived: boolean;
  busy: boolean;
  /** Nothing to act on yet (no row ticked). */
  disabled?: boolean;
}) {
  const button = (intent: string, label: string, className = "button") => (
    <button type="submit" name="intent" value={intent} className={className} disabled={busy || disabled}>
      {label}
    </button>
  );
  return (
    <>
      {read !== "mark-unread" && button("mark-read", "Mark read")}
      {read !== "mark-read" && button("mark-unread", "Mark unread")}
      {archived ? button("unarchive", "Move to inbox") : button("archive", "Archive")}
      {button("delete", "Delete…", "button danger")}
    </>
  );
}
