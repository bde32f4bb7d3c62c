/** The new-chat page's parameter naming the project a chat is started in (docs/decisions/106). */
export const PROJECT_PARAM = "project";

/** The address of a new chat in the project. */
export function newChatInProject(projectId: string): string {
  return `/nuvara?${new URLSearchParams({ [PROJECT_PARAM]: projectId }).toString()}`;
}
