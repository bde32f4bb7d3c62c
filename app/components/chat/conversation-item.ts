/** A row of the conversation list, a folder and a project, as the list, its dialogs and the live list share them. */

export interface ConversationItem {
  id: string;
  title: string | null;
  updatedAt: string;
  /** A reply is being written for it, here or on another device (docs/decisions/070). */
  writing?: boolean;
  /** The reply run behind `writing`: the live list clears the mark when it hears that run end. */
  runId?: string;
  /** A new chat stored only once its first reply ends: nothing to rename or delete yet. */
  pending?: boolean;
  /** Listed first, under Pinned (docs/decisions/085). */
  pinned?: boolean;
  /** In the Archived view, or a search result marked as archived. */
  archived?: boolean;
  /** The folder it is filed in. */
  folderId?: string | null;
  /** The project it belongs to (docs/decisions/106). */
  projectId?: string | null;
}

/** A project of the list: its chats are listed under it (docs/decisions/106). */
export interface ProjectItem {
  id: string;
  name: string;
  instructions: string;
}

export interface FolderItem {
  id: string;
  name: string;
}
