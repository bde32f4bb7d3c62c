import type { ReactNode } from "react";
import { LocalTime } from "~/components/time/local-time";

/** One entry of an admins' audit trail: who did what to whom, when. */
export interface AuditEntry {
  id: number;
  actorEmail: string;
  targetEmail: string;
  createdAt: string;
  change: ReactNode;
}

/** An audit trail on /admin/users (role changes, account changes), newest first; cards on a phone (admin.css). */
export function AuditTable({
  id,
  title,
  empty,
  entries,
}: {
  id: string;
  title: string;
  empty: string;
  entries: AuditEntry[];
}) {
  return (
    <section aria-labelledby={id} className="role-changes">
      <h2 id={id}>{title}</h2>
      {entries.length === 0 ? (
        <p className="empty">{empty}</p>
      ) : (
        <table className="audit-table">
          <caption className="visually-hidden">{title}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">By</th>
              <th scope="col">User</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id}>
                <td data-label="When">
                  <LocalTime value={entry.createdAt} />
                </td>
                <td data-label="By">{entry.actorEmail}</td>
                <td data-label="User">{entry.targetEmail}</td>
                <td data-label="Change">{entry.change}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
