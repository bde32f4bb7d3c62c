import { getConfig } from "~/config.server";

/** Where a user who hit a limit can get more: the pricing page, when plans are on offer. */
export function upgradeUrl(): string | null {
  return getConfig().plans.length > 0 ? "/pricing" : null;
}

/** The name of the plan that grants this role (shown in the nav), or null when no plan does. */
export function planOfRole(role: string): string | null {
  return role ? (getConfig().plans.find((plan) => plan.role === role)?.name ?? null) : null;
}
