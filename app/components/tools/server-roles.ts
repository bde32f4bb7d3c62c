/** How the Tools area names the role keys a server or tool is open to (client-safe). */

const ROLE_LABELS: Record<string, string> = {
  "*": "Everyone",
  none: "No role",
  premium: "Premium",
  admin: "Admins",
};

export const ROLE_CHECKBOXES = ["*", "none", "premium", "admin"] as const;

export function roleLabel(role: string): string {
  return ROLE_LABELS[role] ?? role;
}

export function rolesText(roles: readonly string[]): string {
  return roles.map(roleLabel).join(", ");
}

/** The roles a form shows as typed-in custom roles (not one of the checkboxes). */
export function customRoles(roles: readonly string[]): string {
  return roles.filter((role) => !(ROLE_CHECKBOXES as readonly string[]).includes(role)).join(", ");
}
