import { AuditTable } from "./audit-table";

export interface AccountActionRow {
  id: number;
  actorEmail: string;
  targetEmail: string;
  action: "disable" | "enable" | "sign-out-everywhere" | "delete";
  createdAt: string;
}

const ACTION_WORDS: Record<AccountActionRow["action"], string> = {
  disable: "Disabled the account",
  enable: "Enabled the account",
  "sign-out-everywhere": "Signed them out everywhere",
  delete: "Deleted the account",
};

/** The audit trail of what admins did to accounts (besides roles), newest first. */
export function AccountAuditTable({ actions }: { actions: AccountActionRow[] }) {
  return (
    <AuditTable
      id="account-actions-title"
      title="Account changes"
      empty="No account has been disabled, enabled, logged out or deleted from here yet."
      entries={actions.map((entry) => ({ ...entry, change: ACTION_WORDS[entry.action] }))}
    />
  );
}
