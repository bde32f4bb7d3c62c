import { BUDGET_KINDS, budgetLimitsFor, fallbackModelFor } from "~/data/budgets.server";
import { dailyLimitFor } from "~/data/quotas.server";
import { getModelRegistry, modelsForRole } from "~/llm/models.server";
import { formatAmount, type BudgetKind } from "~/budgets/budget-text";
import { getConfig } from "~/config.server";

/** What a plan gives, read from its role's settings (quota, budgets, models), for /pricing. */
export interface Offer {
  name: string;
  role: string;
  price: string;
  description?: string;
  /** "200 messages a day", "500,000 tokens a day", "$20 of model use a month", … */
  allowances: string[];
  models: string[];
  /** Once a budget is spent, replies come from this model. */
  fallback?: string;
  /** Stripe sells it (a price id, and Stripe configured). */
  forSale: boolean;
}

const PER: Record<BudgetKind, string> = {
  dailyTokens: "a day",
  monthlyTokens: "a month",
  dailyMicroUsd: "of model use a day",
  monthlyMicroUsd: "of model use a month",
};

export async function planOffers(): Promise<{ free: Offer; plans: Offer[] }> {
  const registry = await getModelRegistry();
  const config = getConfig();
  const offer = (name: string, role: string, price: string, description?: string, stripePrice?: string): Offer => {
    const who = { role, isAdmin: false };
    const daily = dailyLimitFor(role);
    const limits = budgetLimitsFor(role);
    const fallback = fallbackModelFor(role);
    const models = modelsForRole(registry, who);
    return {
      name,
      role,
      price,
      description,
      allowances: [
        daily === null ? "Unlimited messages" : `${daily.toLocaleString("en-US")} messages a day`,
        ...BUDGET_KINDS.flatMap((kind) => {
          const limit = limits[kind];
          return limit === null ? [] : [`${formatAmount(kind, limit)} ${PER[kind]}`];
        }),
      ],
      models: models.map((model) => model.label),
      fallback: fallback ? (registry.models.find((model) => model.id === fallback)?.label ?? fallback) : undefined,
      forSale: Boolean(stripePrice && config.stripe),
    };
  };
  return {
    free: offer("Free", "", "$0", "What every account gets."),
    plans: config.plans.map((plan) => offer(plan.name, plan.role, plan.price, plan.description, plan.stripePrice)),
  };
}
