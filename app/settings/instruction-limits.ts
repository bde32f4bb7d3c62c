/**
 * The longest instructions a user may give the model: their own custom
 * instructions, and a project's (docs/decisions/106). One bound for both, so a
 * project's instructions never take more of the prompt than the user's own.
 */
export const MAX_CUSTOM_INSTRUCTIONS_LENGTH = 2_000;
