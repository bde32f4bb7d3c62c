import { Form, useFetcher } from "@remix-run/react";
import { useEffect, useId, useRef, useState } from "react";
import type { AdminUserRow } from "~/data/admin-users.server";
import { firstError } from "./labels";
import { allowanceText, roleChoice, roleName, type RoleAllowances } from "./roles";

/** What the /admin/users action answers a fetcher. */
export type UserActionData =
  | { email: string | null; notice: string }
  | { email: string | null; fieldErrors: Record<string, string> }
  | { email: string; confirmAdmin: { role: string; customRole: string } }
  | { email: null; confirmDelete: { uid: string } };

/**
 * One user's settings in a modal <dialog>: the browser keeps focus inside it
 * and closes it on Escape; the table puts focus back on the Edit button.
 * Making someone an admin and deleting an account ask once more (the server
 * insists on it too). An address that cannot hold a role (docs/decisions/075)
 * gets the reason instead of the role form.
 */
export function UserEditDialog({
  user,
  isMe,
  allowances,
  onClose,
}: {
  user: AdminUserRow;
  isMe: boolean;
  allowances: RoleAllowances;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const confirmDeleteButton = useRef<HTMLButtonElement>(null);
  const fetcher = useFetcher<UserActionData>();
  const titleId = useId();
  const [choice, setChoice] = useState(roleChoice(user.role));
  const [customRole, setCustomRole] = useState(roleChoice(user.role) === "custom" ? user.role : "");
  const busy = fetcher.state !== "idle";
  const data = fetcher.state === "idle" ? fetcher.data : undefined;
  const confirming = data && "confirmAdmin" in data ? data.confirmAdmin : null;
  const [dismissed, setDismissed] = useState<unknown>(null);
  const asking = confirming && dismissed !== data;
  const askingDelete = data && "confirmDelete" in data && dismissed !== data;

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  useEffect(() => {
    if (asking) confirmButton.current?.focus();
  }, [asking]);
  useEffect(() => {
    if (askingDelete) confirmDeleteButton.current?.focus();
  }, [askingDelete]);

  const roles: Array<{ value: ReturnType<typeof roleChoice>; label: string; about: string }> = [
    { value: "none", label: "No role", about: `The standard plan: ${allowanceText(allowances.none)}.` },
    { value: "premium", label: "Premium", about: `A paid plan: ${allowanceText(allowances.premium)}.` },
    {
      value: "admin",
      label: "Admin",
      about: `Opens the admin area: the inbox, everyone's roles and accounts, the tools. ${allowanceText(allowances.admin)[0].toUpperCase()}${allowanceText(allowances.admin).slice(1)}. Takes effect only once their email is verified.`,
    },
    {
      value: "custom",
      label: "Another role",
      about: `A plan name your billing uses, for example “team”: ${allowanceText(allowances.other)} unless configured otherwise.`,
    },
  ];

  return (
    <dialog ref={dialog} className="user-dialog" aria-labelledby={titleId} onClose={onClose}>
      <div className="user-dialog-head">
        <h2 id={titleId}>
          {user.email}
          {isMe ? <span className="fine-print"> (you)</span> : null}
        </h2>
        <button type="button" className="button small" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
      <div aria-live="polite" className="user-dialog-status">
        {data && "notice" in data ? (
          <p className="form-notice" role="status">
            {data.notice}
          </p>
        ) : null}
        {data && "fieldErrors" in data ? (
          <p className="form-error" role="alert">
            {firstError(data.fieldErrors)}
          </p>
        ) : null}
      </div>

      {!user.canHoldRole ? (
        <section className="user-dialog-section" aria-labelledby={`${titleId}-role`}>
          <h3 id={`${titleId}-role`}>Role</h3>
          <p>{user.roleNote}</p>
        </section>
      ) : asking && confirming ? (
        <fetcher.Form
          method="post"
          action="/admin/users"
          className="confirm-panel"
          aria-labelledby={`${titleId}-confirm`}
        >
          <h3 id={`${titleId}-confirm`}>Make {user.email} an admin?</h3>
          <p>
            They will be able to read the inbox, change anyone&apos;s role, disable accounts and edit the tools. Only
            grant this to people you trust.
          </p>
          <input type="hidden" name="email" value={user.email} />
          <input type="hidden" name="role" value={confirming.role} />
          <input type="hidden" name="customRole" value={confirming.customRole} />
          <input type="hidden" name="confirm" value="yes" />
          <button ref={confirmButton} type="submit" className="button primary" disabled={busy}>
            Yes, make admin
          </button>{" "}
          <button type="button" className="button" onClick={() => setDismissed(data)}>
            Cancel
          </button>
        </fetcher.Form>
      ) : (
        <fetcher.Form method="post" action="/admin/users" className="user-dialog-section">
          <input type="hidden" name="email" value={user.email} />
          <fieldset>
            <legend>Role</legend>
            <p className="fine-print">Now: {roleName(user.role)}.</p>
            {user.roleNote ? <p className="form-error">{user.roleNote}</p> : null}
            {roles.map((role) => (
              <label key={role.value} className="role-option">
                <input
                  type="radio"
                  name="role"
                  value={role.value}
                  checked={choice === role.value}
                  onChange={() => setChoice(role.value)}
                />
                <span>
                  <strong>{role.label}</strong>
                  <span className="fine-print"> {role.about}</span>
                </span>
              </label>
            ))}
            {choice === "custom" ? (
              <label className="custom-role">
                Role name
                <input
                  name="customRole"
                  value={customRole}
                  onChange={(event) => setCustomRole(event.target.value)}
                  maxLength={32}
                  pattern="[a-z0-9][a-z0-9_\-]{0,31}"
                  title="1 to 32 lowercase letters, digits, - or _"
                  required
                  aria-describedby={`${titleId}-custom-hint`}
                />
                <span id={`${titleId}-custom-hint`} className="fine-print">
                  Lowercase letters, digits, - or _.
                </span>
              </label>
            ) : null}
          </fieldset>
          <button type="submit" className="button primary" disabled={busy}>
            Save role
          </button>
        </fetcher.Form>
      )}

      <section className="user-dialog-section" aria-labelledby={`${titleId}-account`}>
        <h3 id={`${titleId}-account`}>Account</h3>
        {isMe ? (
          <p className="fine-print">
            This is your own account: to log out on every device, use “Log out everywhere” on your dashboard.
          </p>
        ) : (
          <>
            <p>{user.disabled ? "This account is disabled: they cannot log in." : "This account is active."}</p>
            <fetcher.Form method="post" action="/admin/users" className="user-dialog-actions">
              <input type="hidden" name="uid" value={user.uid} />
              <button
                type="submit"
                name="intent"
                value={user.disabled ? "enable" : "disable"}
                className={user.disabled ? "button" : "button danger"}
                disabled={busy}
              >
                {user.disabled ? "Enable account" : "Disable account"}
              </button>
              <span className="fine-print">
                {user.disabled
                  ? "They can log in again; their earlier sessions stay ended."
                  : "They are logged out on every device at once and cannot log in until enabled."}
              </span>
            </fetcher.Form>
            {user.disabled ? null : (
              <fetcher.Form method="post" action="/admin/users" className="user-dialog-actions">
                <input type="hidden" name="uid" value={user.uid} />
                <button type="submit" name="intent" value="sign-out-everywhere" className="button" disabled={busy}>
                  Log out everywhere
                </button>
                <span className="fine-print">Ends their sessions on every device; they can log in again.</span>
              </fetcher.Form>
            )}
            {askingDelete ? (
              <Form method="post" action="/admin/users" className="confirm-panel" aria-labelledby={`${titleId}-delete`}>
                <h4 id={`${titleId}-delete`}>Delete {user.email}&apos;s account?</h4>
                <p>
                  Their login, conversations, files and messages to the admins are deleted, and it cannot be undone.
                  Disable the account instead to keep them.
                </p>
                <input type="hidden" name="uid" value={user.uid} />
                <input type="hidden" name="confirm" value="yes" />
                <button ref={confirmDeleteButton} type="submit" name="intent" value="delete" className="button danger">
                  Yes, delete the account
                </button>{" "}
                <button type="button" className="button" onClick={() => setDismissed(data)}>
                  Cancel
                </button>
              </Form>
            ) : (
              <fetcher.Form method="post" action="/admin/users" className="user-dialog-actions">
                <input type="hidden" name="uid" value={user.uid} />
                <button type="submit" name="intent" value="delete" className="button danger" disabled={busy}>
                  Delete account…
                </button>
                <span className="fine-print">Deletes the account and everything of theirs; asks once more first.</span>
              </fetcher.Form>
            )}
          </>
        )}
      </section>
    </dialog>
  );
}
