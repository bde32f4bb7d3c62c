import { sql } from "drizzle-orm";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { memoryRoleAccess } from "~/db/schema";
import {
  roleAllowed,
  roleChoice,
  roleSwitchRows,
  setRoleSwitch,
  type RoleChoices,
  type RoleSwitch,
  type RoleSwitchRow,
} from "./role-switches.server";
import { rolesAllow } from "./mcp-servers.server";

/**
 * Which roles have memory across chats (docs/decisions/103, 105): the admins'
 * choice per role (memory_role_access) where they made one, else MEMORY_ROLES
 * (default every role). Read fresh on every check — the chat reads the choices
 * in its context query, the memory page beside the user's memories — so a
 * switch applies at once on every instance and no cache needs telling.
 */
const MEMORY_SWITCH: RoleSwitch = { table: memoryRoleAccess, defaultRoles: () => getConfig().memoryRoles };

export interface MemoryAccess {
  allowed: boolean;
  /** Off because an admin switched it off for the role (not because MEMORY_ROLES leaves the role out). */
  switchedOff: boolean;
}

/** Whether this role's users have memory at all, and why not. */
export async function memoryAccessFor(db: Db, roleKey: string): Promise<MemoryAccess> {
  const chosen = await roleChoice(db, MEMORY_SWITCH, roleKey);
  return {
    allowed: chosen ?? rolesAllow(MEMORY_SWITCH.defaultRoles(), roleKey),
    switchedOff: chosen === false,
  };
}

/** Whether this role's users have memory at all: the admins' choice, else MEMORY_ROLES. */
export async function memoryAllowedFor(db: Db, roleKey: string): Promise<boolean> {
  return (await memoryAccessFor(db, roleKey)).allowed;
}

/** Whether the role has memory, by choices already read (the chat's context, memoryRoleChoicesSql). */
export function memoryAllowedBy(choices: RoleChoices, roleKey: string): boolean {
  return roleAllowed(MEMORY_SWITCH, choices, roleKey);
}

/** A subquery for the chat's context: every admin's memory choice, role key → on, as one JSON object. */
export function memoryRoleChoicesSql() {
  return sql<Record<
    string,
    boolean
  > | null>`(select json_object_agg(${memoryRoleAccess.roleKey}, ${memoryRoleAccess.enabled})
    from ${memoryRoleAccess})`;
}

/** The choices as memoryRoleChoicesSql returns them (null: none made). */
export function memoryRoleChoices(read: Record<string, boolean> | null | undefined): RoleChoices {
  return new Map(Object.entries(read ?? {}));
}

/** Turns memory on or off for a role, as an admin chose; the users' memories are kept either way. */
export function setMemoryAccess(db: Db, choice: { roleKey: string; enabled: boolean; by: string }) {
  return setRoleSwitch(db, MEMORY_SWITCH, choice);
}

export type MemoryAccessRow = RoleSwitchRow;

/** The roles the admins' form offers (app/data/role-switches.server.ts roleSwitchRows). */
export function memoryAccessRows(db: Db): Promise<MemoryAccessRow[]> {
  return roleSwitchRows(
    db,
    MEMORY_SWITCH,
    getConfig().plans.map((plan) => plan.role),
  );
}
