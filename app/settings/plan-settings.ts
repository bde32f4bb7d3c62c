import { z } from "zod";

/**
 * The plans an operator offers (PLANS, docs/decisions/073), as JSON:
 *
 *   PLANS='[{"name":"Pro","role":"pro","price":"$20 a month","stripePrice":"price_123"}]'
 *
 * A plan grants a role (users/{email}.stripeRole); what the role may do —
 * budgets, models, daily messages — is configured per role as before, and
 * the pricing page shows it. `stripePrice` is the Stripe price id Checkout
 * sells (needed only with Stripe configured).
 */
const planSchema = z.object({
  name: z.string().trim().min(1).max(40),
  role: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "must be a role name such as pro (lowercase letters, digits, - and _)")
    .refine((role) => role !== "admin" && role !== "none", "can't be admin or none"),
  price: z.string().trim().min(1).max(40),
  description: z.string().trim().max(200).optional(),
  stripePrice: z
    .string()
    .trim()
    .regex(/^price_[A-Za-z0-9]+$/, "must be a Stripe price id (price_…)")
    .optional(),
});

export type Plan = z.infer<typeof planSchema>;

export function parsePlans(text: string | undefined): Plan[] {
  if (!text || text.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('must be a JSON list, e.g. [{"name":"Pro","role":"pro","price":"$20 a month"}]');
  }
  const parsed = z.array(planSchema).max(12).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  const roles = new Set<string>();
  for (const plan of parsed.data) {
    if (roles.has(plan.role)) throw new Error(`two plans grant the role "${plan.role}"`);
    roles.add(plan.role);
  }
  return parsed.data;
}
