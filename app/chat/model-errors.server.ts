import { APICallError } from "ai";

/**
 * Why a reply failed, in plain words for the person chatting. Details (status
 * codes, provider messages) go to the server log, not to the browser: they
 * can name internal hosts or echo keys.
 */
export const MODEL_TIMEOUT_MESSAGE = "The model took too long to answer. Please try again.";
export const MODEL_DROPPED_MESSAGE =
  "The connection to the model was lost in the middle of the reply. Please try again.";

export function describeModelError(error: unknown): string {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === undefined) {
      return "The model can't be reached right now. Please try again in a moment.";
    }
    if (status === 429) {
      return "The model service is busy (too many requests). Please wait a moment and try again.";
    }
    if (status === 401 || status === 403) {
      return "The model service refused the server's credentials. Please let an administrator know.";
    }
    if (status === 404) return "The model service doesn't know this model. Please pick another model.";
    if (status >= 500) return "The model service had a problem answering. Please try again.";
    return "The model service couldn't handle this request. Please try again or rephrase your message.";
  }
  const name = error instanceof Error ? error.name : "";
  if (/JSONParse|InvalidResponseData|TypeValidation|NoContentGenerated|InvalidStreamPart/.test(name)) {
    return "The model sent a reply that couldn't be read. Please try again.";
  }
  return "Something went wrong while getting the reply. Please try again.";
}
