import { formatTime, roleLabel } from "./labels";

export interface RoleChangeRow {
  id: number;
  actorEmail: string;
  targetEmail: string;
  oldRole: string;
  newRole: string;
  createdAt: string;
}

/** The audit trail of role changes, newest first. */
export function RoleAuditTable({ changes }: { changes: RoleChangeRow[] }) {
  return (
    <section aria-labelledby="role-changes-title" className="role-changes">
      <h2 id="role-changes-title">Role changes</h2>
      {changes.length === 0 ? (
        <p className="empty">No role changes have been made here yet.</p>
      ) : (
        <table>
          <caption className="visually-hidden">Role changes, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">By</th>
              <th scope="col">User</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((change) => (
              <tr key={change.id}>
                <td>
                  <time dateTime={change.createdAt}>{formatTime(change.createdAt)}</time>
                </td>
                <td>{change.actorEmail}</td>
                <td>{change.targetEmail}</td>
                <td>
                  {roleLabel(change.oldRole)} → {roleLabel(change.newRole)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
