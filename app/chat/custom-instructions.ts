/** Custom instructions: a personal note applied to every new chat. Shared by the form and the server. */
import { MAX_CUSTOM_INSTRUCTIONS_LENGTH } from "~/settings/instruction-limits";

export { MAX_CUSTOM_INSTRUCTIONS_LENGTH };

export function checkCustomInstructions(text: string): string | null {
  return text.length > MAX_CUSTOM_INSTRUCTIONS_LENGTH
    ? `Please keep custom instructions to ${MAX_CUSTOM_INSTRUCTIONS_LENGTH.toLocaleString("en-US")} characters or fewer (these are ${text.length.toLocaleString("en-US")}).`
    : null;
}
