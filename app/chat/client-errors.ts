import { budgetSpentMessage, type BudgetView } from "~/budgets/budget-text";
import { quotaExhaustedMessage } from "~/budgets/quota-text";

/**
 * What went wrong with a send, in plain words, from the error useChat reports:
 * an HTTP refusal from the chat endpoint (its JSON body says why), an error
 * the endpoint streamed (already worded for people), or the network.
 */
export interface ShownError {
  message: string;
  /** The daily quota is used up; Retry will not help before the reset. */
  quotaExhausted: boolean;
  /** Signing in again is the fix. */
  signedOut: boolean;
}

interface HttpFailure {
  statusCode?: number;
  responseBody?: string;
}

type RefusalBody = { error?: string; resetsAt?: string; limit?: number; kind?: string; budget?: BudgetView | null };

function parseBody(body: string | undefined): RefusalBody {
  if (!body) return {};
  try {
    const value: unknown = JSON.parse(body);
    return value && typeof value === "object" ? (value as RefusalBody) : {};
  } catch {
    return {};
  }
}

export function describeChatError(error: Error, timeZone?: string): ShownError {
  const shown = (message: string, extra: Partial<ShownError> = {}): ShownError => ({
    message,
    quotaExhausted: false,
    signedOut: false,
    ...extra,
  });
  const { statusCode, responseBody } = error as HttpFailure;
  if (typeof statusCode === "number") {
    const body = parseBody(responseBody);
    if (statusCode === 401)
      return shown("You've been logged out. Please log in again to keep chatting.", { signedOut: true });
    if (statusCode === 429 && body.kind === "budget") {
      // A budget is spent, or too little is left for this message (docs/decisions/072): Retry won't help.
      const message = body.budget
        ? budgetSpentMessage(body.budget, timeZone)
        : (body.error ?? "Your budget is used up.");
      return shown(message, { quotaExhausted: true });
    }
    if (statusCode === 429 && body.resetsAt) {
      return shown(quotaExhaustedMessage(body.limit ?? 0, new Date(body.resetsAt), timeZone), { quotaExhausted: true });
    }
    if (body.error) return shown(body.error);
    if (statusCode >= 500) return shown("The server had a problem. Please try again in a moment.");
    return shown("The message couldn't be sent. Please try again.");
  }
  if (error instanceof TypeError || /network|fetch|load failed/i.test(error.message)) {
    return shown("The connection was lost. Check your network and try again.");
  }
  return shown(error.message || "Something went wrong. Please try again.");
}
