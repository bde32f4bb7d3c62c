import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";
import { MAX_PROJECT_INSTRUCTIONS_LENGTH, MAX_PROJECT_NAME_LENGTH, MAX_PROJECTS } from "./project-limits";

/** The checks of projects' fields (docs/decisions/106), with messages fit to show; the bounds are in ./project-limits. */
export { MAX_PROJECT_INSTRUCTIONS_LENGTH, MAX_PROJECT_NAME_LENGTH, MAX_PROJECTS };

export const PROJECTS_FULL = `You have ${MAX_PROJECTS} projects, the most allowed. Delete one you no longer need to make a new one.`;
export const PROJECT_NOT_FOUND = "That project doesn't exist any more. Reload the page to see your projects.";
export const TEMPORARY_IN_PROJECT = "A temporary chat can't be in a project.";

/** A name as stored: runs of spaces (and line breaks) as one space, trimmed. */
export function tidyProjectName(name: string): string {
  return name.replace(/\s+/g, " ").trim();
}

/** The problem with a (tidied) project name, in words fit to show, or null when it can be saved. */
export function projectNameProblem(name: string): string | null {
  if (!name) return "Please enter a project name.";
  if (!isStorableText(name)) return UNSTORABLE_TEXT_MESSAGE;
  if (name.length > MAX_PROJECT_NAME_LENGTH)
    return `Please keep the project name to ${MAX_PROJECT_NAME_LENGTH} characters or fewer (this one has ${name.length.toLocaleString("en-US")}).`;
  return null;
}

/** The problem with a project's instructions, or null when they can be saved (empty: none). */
export function projectInstructionsProblem(text: string): string | null {
  if (!isStorableText(text)) return UNSTORABLE_TEXT_MESSAGE;
  if (text.length > MAX_PROJECT_INSTRUCTIONS_LENGTH)
    return `Please keep the project's instructions to ${MAX_PROJECT_INSTRUCTIONS_LENGTH.toLocaleString("en-US")} characters or fewer (these are ${text.length.toLocaleString("en-US")}).`;
  return null;
}
