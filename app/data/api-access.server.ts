import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { apiRoleAccess } from "~/db/schema";
import {
  roleAllowed,
  roleChoices,
  roleSwitchRows,
  setRoleSwitch,
  type RoleChoices,
  type RoleSwitch,
  type RoleSwitchRow,
} from "./role-switches.server";

/**
 * Which roles may use the OpenAI-compatible API (docs/decisions/100): the
 * admins' choice per role (api_role_access) where they made one, else
 * API_ROLES (default every role). The choices are read fresh on every call —
 * one small table, read beside the key owner's role — so a switch applies at
 * once on every instance, with or without a pooler, and no cache needs telling.
 */
const API_SWITCH: RoleSwitch = { table: apiRoleAccess, defaultRoles: () => getConfig().apiRoles };

/** The admins' choices: role key → API on or off. */
export type ApiAccessChoices = RoleChoices;

export function apiAccessChoices(db: Db): Promise<ApiAccessChoices> {
  return roleChoices(db, API_SWITCH);
}

/** Whether keys of the role may call the API: the admins' choice, else API_ROLES. */
export function apiAllowed(choices: ApiAccessChoices, roleKey: string): boolean {
  return roleAllowed(API_SWITCH, choices, roleKey);
}

/** Turns the API on or off for a role, as an admin chose; replaces an earlier choice. */
export function setApiAccess(db: Db, choice: { roleKey: string; enabled: boolean; by: string }) {
  return setRoleSwitch(db, API_SWITCH, choice);
}

export type ApiAccessRow = RoleSwitchRow;

/** The roles the admins' form offers (app/data/role-switches.server.ts roleSwitchRows). */
export function apiAccessRows(db: Db): Promise<ApiAccessRow[]> {
  return roleSwitchRows(
    db,
    API_SWITCH,
    getConfig().plans.map((plan) => plan.role),
  );
}
