import { useCallback, useRef, useState } from "react";
import type { AdminUserRow } from "~/data/admin-users.server";
import { LocalTime } from "~/components/time/local-time";
import { compactCount, roleName, type RoleAllowances } from "./roles";
import { UserEditDialog } from "./user-edit-dialog";

/**
 * Users with their role as a chip, this month's use and one Edit button that
 * opens the user's dialog. A table on wide screens; on a phone each row is a
 * card (admin.css), so the page is never wider than the screen.
 */
export function UsersTable({
  users,
  me,
  allowances,
  usageUnavailable,
}: {
  users: AdminUserRow[];
  me: string | null;
  allowances: RoleAllowances;
  usageUnavailable: boolean;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const trigger = useRef<HTMLButtonElement | null>(null);
  const user = users.find((one) => one.uid === editing) ?? null;
  const close = useCallback(() => {
    setEditing(null);
    // Focus goes back to the Edit button that opened the dialog.
    const button = trigger.current;
    if (button) requestAnimationFrame(() => button.focus());
  }, []);

  return (
    <>
      <table className="users-table">
        <caption className="visually-hidden">Users, their roles and their use this month</caption>
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Role</th>
            <th scope="col">This month</th>
            <th scope="col">Last login</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((row) => (
            <tr key={row.uid} className={row.disabled ? "user-disabled" : undefined}>
              <th scope="row" className="user-cell">
                <span className="user-email">{row.email}</span>
                {row.name ? <span className="user-name">{row.name}</span> : null}
                <span className="user-flags">
                  {row.email === me ? <span className="chip">You</span> : null}
                  {row.disabled ? <span className="chip chip-danger">Disabled</span> : null}
                  {!row.emailVerified ? <span className="chip chip-muted">Email not verified</span> : null}
                </span>
              </th>
              <td data-label="Role">
                <span
                  className={`chip role-chip role-${row.role === "" ? "none" : row.role === "admin" ? "admin" : "other"}`}
                >
                  {roleName(row.role)}
                </span>
                {/* requireAdmin lets only a verified address be admin. */}
                {row.role === "admin" && !row.emailVerified ? (
                  <span className="fine-print"> Not in effect until the email is verified.</span>
                ) : null}
                {/* An address that cannot hold a role, or a role that could not be read (docs/decisions/075). */}
                {row.roleNote ? <span className="fine-print role-note"> {row.roleNote}</span> : null}
              </td>
              <td data-label="This month">
                {usageUnavailable ? (
                  "—"
                ) : (
                  <span className="user-usage">
                    {row.usage.messages.toLocaleString("en")} {row.usage.messages === 1 ? "message" : "messages"}
                    <span className="fine-print">
                      {" · "}
                      <abbr title={`${row.usage.tokens.toLocaleString("en")} tokens`}>
                        {compactCount(row.usage.tokens)}
                      </abbr>{" "}
                      tokens
                    </span>
                  </span>
                )}
              </td>
              <td data-label="Last login">
                <LocalTime value={row.lastSignInAt} />
              </td>
              <td className="user-actions">
                <button
                  type="button"
                  className="button small"
                  onClick={(event) => {
                    trigger.current = event.currentTarget;
                    setEditing(row.uid);
                  }}
                >
                  Edit<span className="visually-hidden"> {row.email}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {user ? (
        <UserEditDialog key={user.uid} user={user} isMe={user.email === me} allowances={allowances} onClose={close} />
      ) : null}
    </>
  );
}
