import { Form, useNavigation } from "@remix-run/react";
import type { AdminUserRow } from "~/data/admin-users.server";
import { formatTime, roleLabel } from "./labels";


const PRESETS = ["admin", "premium", ""];

/** Users with their role, and a small form per user to change it. */
export function UsersTable({ users, me }: { users: AdminUserRow[]; me: string | null }) {
  const navigation = useNavigation();
  const saving = navigation.state === "submitting" ? navigation.formData?.get("email") : null;

  return (
    <table className="users-table">
      <caption className="visually-hidden">Users and their roles</caption>
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Name</th>
          <th scope="col">Role</th>
          <th scope="col">Created</th>
          <th scope="col">Last sign-in</th>
          <th scope="col">Change role</th>
        </tr>
      </thead>
      <tbody>
        {users.map((user) => {
          const custom = !PRESETS.includes(user.role);
          return (
            <tr key={user.uid}>
              <td>
                {user.email}
                {user.email === me ? <span className="fine-print"> (you)</span> : null}
                {user.disabled ? <span className="fine-print"> · disabled</span> : null}
              </td>
              <td>{user.name ?? "—"}</td>
              <td>
                {roleLabel(user.role)}
                {/* requireAdmin lets only a verified address be admin. */}
                {user.role === "admin" && !user.emailVerified ? (
                  <span className="fine-print"> (email not verified: not in effect)</span>
                ) : null}
              </td>
              <td>{formatTime(user.createdAt)}</td>
              <td>{formatTime(user.lastSignInAt)}</td>
              <td>
                <Form method="post" className="role-form">
                  <input type="hidden" name="email" value={user.email} />
                  <select name="role" defaultValue={custom ? "custom" : user.role || "none"} aria-label={`Role for ${user.email}`}>
                    <option value="admin">admin</option>
                    <option value="premium">premium</option>
                    <option value="none">none</option>
                    <option value="custom">custom…</option>
                  </select>
                  <input
                    name="customRole"
                    defaultValue={custom ? user.role : ""}
                    aria-label={`Custom role for ${user.email}`}
                    placeholder="custom role"
                    maxLength={32}
                    size={10}
                  />
                  <button type="submit" className="button" disabled={saving === user.email}>
                    Save<span className="visually-hidden"> role for {user.email}</span>
                  </button>
                </Form>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
