import { parseRoleMap, type RoleMap } from "~/settings/role-settings";

/**
 * Budgets per role (docs/decisions/072), written like the other per-role
 * settings (app/settings/role-settings.ts):
 *
 *   BUDGET_DAILY_TOKENS="none=20000;pro=500000;admin=unlimited"
 *   BUDGET_MONTHLY_USD="none=0.50;pro=20"
 *   BUDGET_FALLBACK_MODEL="none=llama3.2:1b"
 *   LLM_MODEL_PRICES="gpt-4o=2.50/10;gpt-4o-mini=0.15/0.60"
 *
 * A role with no entry (and no `*` entry) has no such budget. Money is held
 * in micro-dollars (whole numbers) so sums are exact in PostgreSQL and in JS.
 */

/** A budget: a whole number of tokens or micro-dollars, or null (none). */
export type BudgetLimit = number | null;

export interface BudgetLimits {
  dailyTokens: BudgetLimit;
  monthlyTokens: BudgetLimit;
  dailyMicroUsd: BudgetLimit;
  monthlyMicroUsd: BudgetLimit;
}

export const NO_BUDGETS: BudgetLimits = {
  dailyTokens: null,
  monthlyTokens: null,
  dailyMicroUsd: null,
  monthlyMicroUsd: null,
};

export function hasBudget(limits: BudgetLimits): boolean {
  return Object.values(limits).some((limit) => limit !== null);
}

/** A model's price in US dollars per million tokens (what providers publish). */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export const FREE: ModelPrice = { inputPerMillion: 0, outputPerMillion: 0 };

export function parseTokenBudgets(text: string | undefined): RoleMap<BudgetLimit> {
  return parseRoleMap<BudgetLimit>(text, (value, role) => {
    if (value.toLowerCase() === "unlimited") return null;
    const compact = value.replace(/_/g, "");
    if (!/^\d+$/.test(compact))
      throw new Error(`token budget for "${role}" must be a whole number or "unlimited", not "${value}"`);
    return Number(compact);
  });
}

export function parseMoneyBudgets(text: string | undefined): RoleMap<BudgetLimit> {
  return parseRoleMap<BudgetLimit>(text, (value, role) => {
    if (value.toLowerCase() === "unlimited") return null;
    const dollars = value.replace(/^\$/, "");
    if (!/^\d+(\.\d{1,6})?$/.test(dollars)) {
      throw new Error(
        `budget for "${role}" must be an amount in US dollars such as 5 or 0.50, or "unlimited", not "${value}"`,
      );
    }
    return dollarsToMicro(dollars);
  });
}

/** "0.50" → 500000, without floating-point error. */
export function dollarsToMicro(dollars: string): number {
  const [whole, fraction = ""] = dollars.split(".");
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, "0"));
}

/** The fallback model a role's replies use once a budget is spent (ids may contain colons: "=" separates). */
export function parseFallbackModels(text: string | undefined): RoleMap<string> {
  return parseRoleMap<string>(text, (value, role) => {
    if (value === "") throw new Error(`no fallback model given for "${role}"`);
    return value;
  });
}

/** `model=input/output` entries, US dollars per million tokens. */
export function parseModelPrices(text: string | undefined): ReadonlyMap<string, ModelPrice> {
  const prices = new Map<string, ModelPrice>();
  for (const entry of (text ?? "").split(";")) {
    if (entry.trim() === "") continue;
    const at = entry.lastIndexOf("=");
    const model = entry.slice(0, at).trim();
    const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(entry.slice(at + 1));
    if (at <= 0 || model === "" || !match) {
      throw new Error(
        `"${entry.trim()}" is not model=input/output (US dollars per million tokens, e.g. gpt-4o-mini=0.15/0.60)`,
      );
    }
    if (prices.has(model)) throw new Error(`model "${model}" is priced twice`);
    prices.set(model, { inputPerMillion: Number(match[1]), outputPerMillion: Number(match[2]) });
  }
  return prices;
}

/**
 * What tokens cost, in micro-dollars: a price per million tokens is exactly
 * micro-dollars per token. Rounded up, so many small replies never add up to
 * less than they cost.
 */
export function costMicroUsd(price: ModelPrice, inputTokens: number, outputTokens: number): number {
  return Math.ceil(inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion);
}
