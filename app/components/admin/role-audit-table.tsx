import { AuditTable } from "./audit-table";
import { roleName } from "./roles";

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
    <AuditTable
      id="role-changes-title"
      title="Role changes"
      empty="No role changes have been made here yet."
      entries={changes.map((change) => ({
        ...change,
        change: `${roleName(change.oldRole)} → ${roleName(change.newRole)}`,
      }))}
    />
  );
}
