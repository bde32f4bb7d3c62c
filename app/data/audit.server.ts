import { desc } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { accountAudit, roleAudit, type AccountAction, type AccountAuditRow, type RoleChange } from "~/db/schema";

/** The trail of role changes made from the admin area (who, when, old → new). */

export interface RoleChangeEntry {
  actor: { uid: string; email: string };
  targetEmail: string;
  oldRole: string;
  newRole: string;
}

/** Takes a transaction too: the entry commits only if the role write it records succeeds. */
export async function recordRoleChange(db: Pick<Db, "insert">, entry: RoleChangeEntry): Promise<RoleChange> {
  const [row] = await db
    .insert(roleAudit)
    .values({
      actorUid: entry.actor.uid,
      actorEmail: entry.actor.email,
      targetEmail: entry.targetEmail,
      oldRole: entry.oldRole,
      newRole: entry.newRole,
    })
    .returning();
  return row;
}

export async function recentRoleChanges(db: Db, limit = 50): Promise<RoleChange[]> {
  return db.select().from(roleAudit).orderBy(desc(roleAudit.createdAt), desc(roleAudit.id)).limit(limit);
}

/** What admins did to accounts besides roles: disable, enable, sign out everywhere. */
export interface AccountActionEntry {
  actor: { uid: string; email: string };
  targetUid: string;
  targetEmail: string;
  action: AccountAction;
}

/** Takes a transaction too: the entry commits only if the identity change it records succeeds. */
export async function recordAccountAction(db: Pick<Db, "insert">, entry: AccountActionEntry): Promise<AccountAuditRow> {
  const [row] = await db
    .insert(accountAudit)
    .values({
      actorUid: entry.actor.uid,
      actorEmail: entry.actor.email,
      targetUid: entry.targetUid,
      targetEmail: entry.targetEmail,
      action: entry.action,
    })
    .returning();
  return row;
}

export async function recentAccountActions(db: Db, limit = 50): Promise<AccountAuditRow[]> {
  return db.select().from(accountAudit).orderBy(desc(accountAudit.createdAt), desc(accountAudit.id)).limit(limit);
}
