import { sql } from "drizzle-orm";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { apiRoleAccess } from "~/db/schema";
import { ADMIN_KEY, NO_ROLE_KEY, OTHER_ROLES_KEY } from "~/settings/role-settings";
import { rolesAllow } from "./mcp-servers.server";

/**
 * Which roles may use the OpenAI-compatible API (docs/decisions/100): the
 * admins' choice per role (api_role_access) where they made one, else
 * API_ROLES (default every role). The choices are read fresh on every call —
 * one small table, read beside the key owner's role — so a switch applies at
 * once on every instance, with or without a pooler, and no cache needs telling.
 */

/** The admins' choices: role key → API on or off. */
export type ApiAccessChoices = ReadonlyMap<string, boolean>;

export async function apiAccessChoices(db: Db): Promise<ApiAccessChoices> {
  const rows = await db.select({ roleKey: apiRoleAccess.roleKey, enabled: apiRoleAccess.enabled }).from(apiRoleAccess);
  return new Map(rows.map((row) => [row.roleKey, row.enabled]));
}

/** Whether keys of the role may call the API: the admins' choice, else API_ROLES. */
export function apiAllowed(choices: ApiAccessChoices, roleKey: string): boolean {
  const chosen = choices.get(roleKey);
  return chosen ?? rolesAllow(getConfig().apiRoles, roleKey);
}

/** Turns the API on or off for a role, as an admin chose; replaces an earlier choice. */
export async function setApiAccess(
  db: Db,
  { roleKey, enabled, by }: { roleKey: string; enabled: boolean; by: string },
) {
  await db
    .insert(apiRoleAccess)
    .values({ roleKey, enabled, changedBy: by })
    .onConflictDoUpdate({
      target: apiRoleAccess.roleKey,
      set: { enabled, changedBy: by, changedAt: sql`now()` },
    });
}

export interface ApiAccessRow {
  roleKey: string;
  enabled: boolean;
  /** What API_ROLES says for the role (what it goes back to without a choice). */
  byDefault: boolean;
  /** The admins' choice, if one was made: who and when. */
  chosen: { by: string; at: string } | null;
}

/**
 * The roles the admins' form offers: users without a role, every plan's role,
 * the roles API_ROLES names, those with a choice already, and admins.
 */
export async function apiAccessRows(db: Db): Promise<ApiAccessRow[]> {
  const rows = await db.select().from(apiRoleAccess);
  const stored = new Map(rows.map((row) => [row.roleKey, row]));
  const config = getConfig();
  const keys = new Set([
    NO_ROLE_KEY,
    ...config.plans.map((plan) => plan.role),
    ...config.apiRoles.filter((role) => role !== OTHER_ROLES_KEY),
    ...[...stored.keys()].sort(),
    ADMIN_KEY,
  ]);
  return [...keys].map((roleKey) => {
    const row = stored.get(roleKey);
    const byDefault = rolesAllow(config.apiRoles, roleKey);
    return {
      roleKey,
      enabled: row?.enabled ?? byDefault,
      byDefault,
      chosen: row ? { by: row.changedBy, at: row.changedAt.toISOString() } : null,
    };
  });
}
