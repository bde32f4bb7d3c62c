/**
 * Roles as admins read them on /admin/users (client-safe). A role is a word
 * kept with each account's email: "admin" opens the admin area (on a verified
 * address only), "premium" and custom roles are plans — what each may use
 * (messages a day, models) is set per role in the server's configuration.
 */

export const PRESET_ROLES = ["", "premium", "admin"] as const;

/** What the role select and the role chips call a stored role. */
export function roleName(role: string): string {
  if (role === "") return "No role";
  if (role === "admin") return "Admin";
  if (role === "premium") return "Premium";
  return role;
}

/** The form's choice for a stored role: a preset, or "custom" with its value. */
export function roleChoice(role: string): "none" | "premium" | "admin" | "custom" {
  if (role === "") return "none";
  return role === "admin" || role === "premium" ? role : "custom";
}

/** Messages a day for a role, as the server's quota configuration says (null: unlimited). */
export interface RoleAllowances {
  none: number | null;
  premium: number | null;
  admin: number | null;
  /** Roles the configuration does not list. */
  other: number | null;
}

export function allowanceText(limit: number | null): string {
  return limit === null ? "unlimited messages" : `${limit.toLocaleString("en")} messages a day`;
}

/** Compact counts for the usage column: 1234 → "1.2k". */
export function compactCount(value: number): string {
  if (value < 1000) return String(value);
  if (value < 1_000_000) return `${(value / 1000).toFixed(value < 10_000 ? 1 : 0)}k`;
  return `${(value / 1_000_000).toFixed(1)}M`;
}
