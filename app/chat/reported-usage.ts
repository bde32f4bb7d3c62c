/**
 * What the model provider says a step of a reply used is what budgets and
 * usage are charged (docs/decisions/072), so it is believed only when it is a
 * count a model could have used: a whole number, not negative, and at most
 * ten times what the step could have sent and received — the prompt's
 * estimate (already on the high side) plus the longest reply. A step's input
 * also holds the earlier steps' text and tool results; a few steps of those
 * stay well inside the factor.
 *
 * Anything else (a negative count would give a budget back, 1e308 fits no
 * column and the reply could not be stored) is not added: the reply is
 * charged at the app's own estimate instead, as when nothing is reported.
 */

export const REPORTED_USAGE_FACTOR = 10;

export interface StepUsage {
  inputTokens: number;
  outputTokens: number;
}

/** The most tokens a step's input or output count may be and still be believed. */
export function reportedUsageCeiling(promptEstimate: number, maxOutputTokens: number): number {
  return REPORTED_USAGE_FACTOR * (promptEstimate + maxOutputTokens);
}

/** The step's counts when both are believable (a missing one is 0); undefined when either is not. */
export function believableUsage(
  reported: { inputTokens?: number; outputTokens?: number },
  ceiling: number,
): StepUsage | undefined {
  const inputTokens = reported.inputTokens ?? 0;
  const outputTokens = reported.outputTokens ?? 0;
  return isCount(inputTokens, ceiling) && isCount(outputTokens, ceiling) ? { inputTokens, outputTokens } : undefined;
}

function isCount(value: unknown, ceiling: number): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= ceiling;
}
