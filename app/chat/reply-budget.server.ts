import { hasBudget } from "~/settings/budget-settings";
import { estimatePromptTokens } from "~/budgets/prompt-estimate";
import { budgetLimitsFor, fallbackModelFor, holdBudget, priceOf, type BudgetStatus } from "~/data/budgets.server";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import type { ModelOption, ModelRegistry } from "~/llm/models.server";
import { log } from "~/log/logger.server";
import { budgetSpentMessage, budgetTooSmallMessage, toBudgetView, type BudgetView } from "~/budgets/budget-text";
import type { ReplyPlan } from "./reply.server";

/**
 * The budget step of a reply (docs/decisions/072), between planning it and
 * asking the model: a role without budgets passes at no cost; otherwise the
 * reply holds its budget and its length is capped by what is left. Once a
 * budget is spent the reply goes to the role's fallback model (not budgeted:
 * the daily message quota still counts it), or is refused with the reset time.
 */

export interface BudgetRefusal {
  status: 429;
  kind: "budget";
  error: string;
  budget: BudgetView | null;
  resetsAt: string;
}

export type Budgeted = { plan: ReplyPlan } | { refusal: BudgetRefusal };

export async function applyBudget(
  db: Db,
  plan: ReplyPlan,
  who: { role: string; isAdmin: boolean },
  registry: ModelRegistry,
  replan: (model: ModelOption) => ReplyPlan | { error: string },
): Promise<Budgeted> {
  const limits = budgetLimitsFor(who);
  if (!hasBudget(limits)) return { plan };
  const promptTokens = estimatePromptTokens(plan.system, plan.history, { vision: plan.vision });
  const hold = await holdBudget(db, {
    uid: plan.uid,
    messageId: plan.user.id,
    limits,
    price: priceOf(plan.model.id),
    promptTokens,
    maxOutputTokens: getConfig().budgets.maxOutputTokens,
  });
  if (hold.ok) {
    return {
      plan: { ...plan, who, promptTokens, maxOutputTokens: hold.maxOutputTokens, budget: toBudgetView(hold.status) },
    };
  }

  const fallback = fallbackOption(registry, who, plan.model.id);
  const view = toBudgetView(hold.status, fallback?.label);
  if (fallback) {
    const replanned = replan(fallback);
    if (!("error" in replanned)) return { plan: { ...replanned, who, fallback: true, budget: view } };
  }
  const spent = hold.status.lines.find((entry) => entry.left <= 0);
  const line = spent ?? hold.status.lines[0];
  const error = spent ? budgetSpentMessage(spent) : budgetTooSmallMessage(line);
  return { refusal: { status: 429, kind: "budget", error, budget: spent ? view : null, resetsAt: line.resetsAt } };
}

function fallbackOption(
  registry: ModelRegistry,
  who: { role: string; isAdmin: boolean },
  current: string,
): ModelOption | undefined {
  const id = fallbackModelFor(who);
  if (!id || id === current) return undefined;
  const option = registry.models.find((model) => model.id === id);
  if (!option)
    log().warn(
      { model: id },
      "BUDGET_FALLBACK_MODEL names a model the provider does not offer; replies are refused instead",
    );
  return option;
}

export type { BudgetStatus };
