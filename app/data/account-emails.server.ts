import { getConfig } from "~/config.server";
import { withDeadline } from "~/deadline.server";
import { adminAuth } from "~/firebase.server";
import { log } from "~/log/logger.server";

/**
 * Who a uid is, for admin pages that list people by the uid PostgreSQL
 * keeps: the account's email from Firebase Auth, or that the account no
 * longer exists. Without the identity service the page still renders and
 * shows the uid (a fault degrades, docs/architecture.md).
 */
export type AccountName = { kind: "email"; email: string } | { kind: "deleted" } | { kind: "unknown" };

/** Firebase Auth's getUsers takes at most 100 identifiers a call. */
const BATCH = 100;

export async function accountNames(uids: readonly string[]): Promise<Map<string, AccountName>> {
  const unique = [...new Set(uids)];
  const names = new Map<string, AccountName>(unique.map((uid) => [uid, { kind: "unknown" }]));
  try {
    for (let start = 0; start < unique.length; start += BATCH) {
      const batch = unique.slice(start, start + BATCH);
      const { users, notFound } = await withDeadline(
        "identity",
        getConfig().backendTimeoutMs,
        adminAuth().getUsers(batch.map((uid) => ({ uid }))),
      );
      for (const user of users) if (user.email) names.set(user.uid, { kind: "email", email: user.email });
      for (const missing of notFound) if ("uid" in missing) names.set(missing.uid, { kind: "deleted" });
    }
  } catch (error) {
    log().warn({ err: error instanceof Error ? error.name : "failure" }, "[admin] account emails unavailable");
  }
  return names;
}
