import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "~/db/client.server";
import type { apiRoleAccess } from "~/db/schema";
import { ADMIN_KEY, NO_ROLE_KEY, OTHER_ROLES_KEY } from "~/settings/role-settings";
import { rolesAllow } from "./mcp-servers.server";

/**
 * A feature the admins switch per role (docs/decisions/100, 105): API access,
 * memory. Each has a table of the same columns (app/db/schema/api.ts
 * roleSwitchColumns) and a variable naming the roles that have it by default.
 * A role with a row follows the row; a role without one follows the variable.
 * The choices are read fresh on every check, so a switch applies at once on
 * every instance, with or without a pooler, and no cache needs telling.
 */

/** Any of the per-role switch tables: they share their columns. */
export type RoleSwitchTable = typeof apiRoleAccess;

export interface RoleSwitch {
  table: RoleSwitchTable;
  /** The roles the operator's variable names (API_ROLES, MEMORY_ROLES): read when needed, as tests change them. */
  defaultRoles: () => readonly string[];
}

/** The admins' choices: role key → on or off. */
export type RoleChoices = ReadonlyMap<string, boolean>;

export async function roleChoices(db: Db, { table }: RoleSwitch): Promise<RoleChoices> {
  const rows = await db.select({ roleKey: table.roleKey, enabled: table.enabled }).from(table);
  return new Map(rows.map((row) => [row.roleKey, row.enabled]));
}

/** Whether the role has the feature: the admins' choice, else the variable. */
export function roleAllowed(feature: RoleSwitch, choices: RoleChoices, roleKey: string): boolean {
  return choices.get(roleKey) ?? rolesAllow(feature.defaultRoles(), roleKey);
}

/** The admins' choice for one role (null: never switched), read fresh. */
export async function roleChoice(db: Db, { table }: RoleSwitch, roleKey: string): Promise<boolean | null> {
  const [row] = await db.select({ enabled: table.enabled }).from(table).where(eq(table.roleKey, roleKey));
  return row?.enabled ?? null;
}

/** Turns the feature on or off for a role, as an admin chose; replaces an earlier choice. */
export async function setRoleSwitch(
  db: Db,
  { table }: RoleSwitch,
  { roleKey, enabled, by }: { roleKey: string; enabled: boolean; by: string },
) {
  await db
    .insert(table)
    .values({ roleKey, enabled, changedBy: by })
    .onConflictDoUpdate({
      target: table.roleKey,
      set: { enabled, changedBy: by, changedAt: sql`now()` },
    });
}

export interface RoleSwitchRow {
  roleKey: string;
  enabled: boolean;
  /** What the variable says for the role (what it goes back to without a choice). */
  byDefault: boolean;
  /** The admins' choice, if one was made: who and when. */
  chosen: { by: string; at: string } | null;
}

/**
 * The roles the admins' form offers: users without a role, the plans' roles,
 * the roles the variable names, those with a choice already, and admins.
 */
export async function roleSwitchRows(
  db: Db,
  feature: RoleSwitch,
  planRoles: readonly string[],
): Promise<RoleSwitchRow[]> {
  const rows = await db.select().from(feature.table);
  const stored = new Map(rows.map((row) => [row.roleKey, row]));
  const defaults = feature.defaultRoles();
  const keys = new Set([
    NO_ROLE_KEY,
    ...planRoles,
    ...defaults.filter((role) => role !== OTHER_ROLES_KEY),
    ...[...stored.keys()].sort(),
    ADMIN_KEY,
  ]);
  return [...keys].map((roleKey) => {
    const row = stored.get(roleKey);
    const byDefault = rolesAllow(defaults, roleKey);
    return {
      roleKey,
      enabled: row?.enabled ?? byDefault,
      byDefault,
      chosen: row ? { by: row.changedBy, at: row.changedAt.toISOString() } : null,
    };
  });
}

/** A role's settings key, as plans name roles (app/settings/plan-settings.ts); "none" and "admin" are such words too. */
const ROLE_KEY = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** What an admin's switch form posts: the role and on or off. */
export const roleSwitchInput = z.object({
  roleKey: z
    .string()
    .trim()
    .regex(ROLE_KEY, "A role is a word such as pro: lowercase letters, digits, - and _, at most 32."),
  enabled: z.enum(["on", "off"], { message: "Choose on or off." }),
});
