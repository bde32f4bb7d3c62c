import { MAX_CUSTOM_INSTRUCTIONS_LENGTH } from "~/settings/instruction-limits";

/**
 * The bounds of projects (docs/decisions/106), shared by the project dialog
 * and the server: how many one user keeps, how long a name and the
 * instructions may be (the instructions as long as the user's own custom
 * instructions). Numbers only: the page imports this file without the
 * checks' validation code (./project-rules.ts).
 */
export const MAX_PROJECTS = 100;
export const MAX_PROJECT_NAME_LENGTH = 100;
export const MAX_PROJECT_INSTRUCTIONS_LENGTH = MAX_CUSTOM_INSTRUCTIONS_LENGTH;
