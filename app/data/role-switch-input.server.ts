import { z } from "zod";
import { fieldErrors } from "~/http/forms.server";

/**
 * An admin's switch of one feature for one role (/admin/api), read from its
 * form on the server: zod stays out of the page's browser bundle (ADR 055).
 */

/** A role's settings key, as plans name roles (app/settings/plan-settings.ts); "none" and "admin" are such words too. */
const ROLE_KEY = /^[a-z0-9][a-z0-9_-]{0,31}$/;

const roleSwitchSchema = z.object({
  roleKey: z
    .string()
    .trim()
    .regex(ROLE_KEY, "A role is a word such as pro: lowercase letters, digits, - and _, at most 32."),
  enabled: z.enum(["on", "off"], { message: "Choose on or off." }),
});

export type RoleSwitch = { roleKey: string; enabled: boolean } | { error: string };

/** The role and the side it is switched to, or the first problem in words fit to show. */
export function readRoleSwitch(fields: Record<string, unknown>): RoleSwitch {
  const parsed = roleSwitchSchema.safeParse(fields);
  if (!parsed.success) return { error: Object.values(fieldErrors(parsed.error))[0] ?? "Choose a role and on or off." };
  return { roleKey: parsed.data.roleKey, enabled: parsed.data.enabled === "on" };
}
