import { useFetcher, useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { forgetChat } from "./chat-sessions";
import { Dialog } from "./dialog";
import type { ConversationItem, FolderItem, ProjectItem } from "./conversation-item";
import { MAX_PROJECT_INSTRUCTIONS_LENGTH, MAX_PROJECT_NAME_LENGTH } from "~/data/project-limits";

/**
 * The list's dialogs: delete one chat or the selected ones, move a chat to a
 * folder or a project, name a folder, delete a folder, make or edit a
 * project, delete a project (with its chats, or moving them out). Each posts one form and closes once
 * the server said yes; a refusal is shown in the dialog, whose inputs keep
 * what was typed.
 */

type Result = { ok?: boolean; error?: string; count?: number };

/** A fetcher whose successful answer runs `done` once. */
function useSubmitThen(done: () => void) {
  const fetcher = useFetcher<Result>();
  const waiting = useRef(false);
  useEffect(() => {
    if (fetcher.state !== "idle" || !waiting.current) return;
    waiting.current = false;
    if (fetcher.data?.ok) done();
  }, [fetcher.state, fetcher.data, done]);
  const submit = (fields: Record<string, string> | URLSearchParams, action: string) => {
    waiting.current = true;
    fetcher.submit(fields, { method: "post", action });
  };
  return { fetcher, submit, busy: fetcher.state !== "idle" };
}

function ErrorLine({ error }: { error?: string }) {
  return error ? (
    <p className="form-error" role="alert">
      {error}
    </p>
  ) : null;
}

export function DeleteDialog({
  target,
  activeId,
  onClose,
}: {
  target: ConversationItem | null;
  activeId: string | null;
  onClose: () => void;
}) {
  const navigate = useNavigate();
  const id = target?.id;
  const { fetcher, submit, busy } = useSubmitThen(() => {
    if (!id) return;
    forgetChat(id);
    if (id === activeId) navigate("/nuvara", { replace: true });
    onClose();
  });
  return (
    <Dialog open={target !== null} onClose={onClose} title="Delete this conversation?">
      <p>“{target?.title ?? "New chat"}” and all its messages will be deleted. This can't be undone.</p>
      <ErrorLine error={fetcher.data?.error} />
      <ConfirmDanger
        label="Delete"
        busy={busy}
        onCancel={onClose}
        onConfirm={() => target && submit({ intent: "delete" }, `/nuvara/${target.id}`)}
      />
    </Dialog>
  );
}

export function BulkDeleteDialog({
  ids,
  open,
  activeId,
  onDone,
  onClose,
}: {
  ids: string[];
  open: boolean;
  activeId: string | null;
  onDone: () => void;
  onClose: () => void;
}) {
  const navigate = useNavigate();
  const { fetcher, submit, busy } = useSubmitThen(() => {
    ids.forEach(forgetChat);
    if (activeId && ids.includes(activeId)) navigate("/nuvara", { replace: true });
    onDone();
  });
  const count = ids.length;
  const noun = count === 1 ? "chat" : "chats";
  return (
    <Dialog open={open} onClose={onClose} title={`Delete ${count} ${noun}?`}>
      <p>
        The {count} selected {noun} and all {count === 1 ? "its" : "their"} messages will be deleted. This can't be
        undone.
      </p>
      <ErrorLine error={fetcher.data?.error} />
      <ConfirmDanger
        label={`Delete ${count} ${noun}`}
        busy={busy}
        onCancel={onClose}
        onConfirm={() =>
          submit(new URLSearchParams([["intent", "bulk-delete"], ...ids.map((id) => ["id", id])]), "/nuvara")
        }
      />
    </Dialog>
  );
}

export function MoveDialog({
  target,
  folders,
  onNewFolder,
  onClose,
}: {
  target: ConversationItem | null;
  folders: FolderItem[];
  onNewFolder: () => void;
  onClose: () => void;
}) {
  return (
    <MoveToPlaceDialog
      place={{ noun: "folder", Noun: "Folder", intent: "move", field: "folder" }}
      target={target}
      current={target?.folderId ?? ""}
      places={folders}
      onNewPlace={onNewFolder}
      onClose={onClose}
    />
  );
}

/** Where a chat can be put: a folder or a project, and the chat's intent and field that put it there. */
interface PlaceKind {
  noun: string;
  Noun: string;
  intent: string;
  field: string;
}

/** Puts a chat in one of the user's folders or projects, or out of any. */
function MoveToPlaceDialog({
  place,
  target,
  current,
  places,
  onNewPlace,
  onClose,
}: {
  place: PlaceKind;
  target: ConversationItem | null;
  current: string;
  places: Array<{ id: string; name: string }>;
  onNewPlace: () => void;
  onClose: () => void;
}) {
  const { fetcher, submit, busy } = useSubmitThen(onClose);
  const [choice, setChoice] = useState("");
  useEffect(() => setChoice(current), [target, current]);
  return (
    <Dialog open={target !== null} onClose={onClose} title={`Move to ${place.noun}`}>
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (target) submit({ intent: place.intent, [place.field]: choice }, `/nuvara/${target.id}`);
        }}
      >
        <label className="field">
          <span>
            {place.Noun} for “{target?.title ?? "New chat"}”
          </span>
          <select value={choice} onChange={(event) => setChoice(event.currentTarget.value)}>
            <option value="">No {place.noun}</option>
            {places.map((option) => (
              <option key={option.id} value={option.id}>
                {option.name}
              </option>
            ))}
          </select>
        </label>
        {places.length === 0 ? <p className="fine-print">You have no {place.noun}s yet.</p> : null}
        <ErrorLine error={fetcher.data?.error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onNewPlace}>
            New {place.noun}
          </button>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={busy}>
            Move
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Names a new folder (`folder` null) or renames one. */
export function FolderNameDialog({
  open,
  folder,
  onClose,
}: {
  open: boolean;
  folder: FolderItem | null;
  onClose: () => void;
}) {
  const { fetcher, submit, busy } = useSubmitThen(onClose);
  return (
    <Dialog open={open} onClose={onClose} title={folder ? "Rename folder" : "New folder"}>
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          const name = String(new FormData(event.currentTarget).get("name") ?? "");
          submit(
            folder ? { intent: "folder-rename", folder: folder.id, name } : { intent: "folder-create", name },
            "/nuvara",
          );
        }}
      >
        <label className="field">
          <span>Folder name</span>
          <input name="name" defaultValue={folder?.name ?? ""} maxLength={60} required autoFocus />
        </label>
        <ErrorLine error={fetcher.data?.error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={busy}>
            {folder ? "Rename" : "Create folder"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function DeleteFolderDialog({
  folder,
  count,
  onClose,
}: {
  folder: FolderItem | null;
  count: number;
  onClose: () => void;
}) {
  const { fetcher, submit, busy } = useSubmitThen(onClose);
  return (
    <Dialog open={folder !== null} onClose={onClose} title="Delete this folder?">
      <p>
        The folder “{folder?.name}” will be deleted.{" "}
        {count > 0
          ? `Its ${count === 1 ? "chat is" : `${count} chats are`} kept: ${count === 1 ? "it moves" : "they move"} back to your list.`
          : "It holds no chats."}
      </p>
      <ErrorLine error={fetcher.data?.error} />
      <ConfirmDanger
        label="Delete folder"
        busy={busy}
        onCancel={onClose}
        onConfirm={() => folder && submit({ intent: "folder-delete", folder: folder.id }, "/nuvara")}
      />
    </Dialog>
  );
}

/** Makes a project (`project` null) or edits its name and instructions (docs/decisions/106). */
export function ProjectDialog({
  open,
  project,
  onClose,
}: {
  open: boolean;
  project: ProjectItem | null;
  onClose: () => void;
}) {
  const { fetcher, submit, busy } = useSubmitThen(onClose);
  return (
    <Dialog open={open} onClose={onClose} title={project ? "Edit project" : "New project"}>
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const name = String(form.get("name") ?? "");
          const instructions = String(form.get("instructions") ?? "");
          submit(
            project
              ? { intent: "project-edit", project: project.id, name, instructions }
              : { intent: "project-create", name, instructions },
            "/nuvara",
          );
        }}
      >
        <label>
          Project name
          <input
            name="name"
            defaultValue={project?.name ?? ""}
            maxLength={MAX_PROJECT_NAME_LENGTH}
            required
            autoFocus
          />
        </label>
        <label>
          Instructions for every chat in this project
          <textarea
            name="instructions"
            defaultValue={project?.instructions ?? ""}
            maxLength={MAX_PROJECT_INSTRUCTIONS_LENGTH}
            rows={6}
            aria-describedby="project-instructions-hint"
          />
        </label>
        <p id="project-instructions-hint" className="fine-print">
          The assistant follows them in this project's chats, with your own custom instructions. At most{" "}
          {MAX_PROJECT_INSTRUCTIONS_LENGTH.toLocaleString("en-US")} characters; leave empty for none.
        </p>
        <ErrorLine error={fetcher.data?.error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={busy}>
            {project ? "Save" : "Create project"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Deletes a project, asking what becomes of its chats: kept (moved out, the default) or deleted too. */
export function DeleteProjectDialog({
  project,
  chatIds,
  activeId,
  onClose,
}: {
  project: ProjectItem | null;
  /** The project's chats in the list. */
  chatIds: string[];
  activeId: string | null;
  onClose: () => void;
}) {
  const navigate = useNavigate();
  const [chats, setChats] = useState<"move-out" | "delete">("move-out");
  useEffect(() => setChats("move-out"), [project]);
  const { fetcher, submit, busy } = useSubmitThen(() => {
    if (chats === "delete") {
      chatIds.forEach(forgetChat);
      if (activeId && chatIds.includes(activeId)) navigate("/nuvara", { replace: true });
    }
    onClose();
  });
  return (
    <Dialog open={project !== null} onClose={onClose} title="Delete this project?">
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (project) submit({ intent: "project-delete", project: project.id, chats }, "/nuvara");
        }}
      >
        <p>The project “{project?.name}” and its instructions will be deleted.</p>
        <fieldset>
          <legend>Its chats</legend>
          <label className="radio">
            <input
              type="radio"
              name="chats"
              value="move-out"
              checked={chats === "move-out"}
              onChange={() => setChats("move-out")}
            />
            Keep them: move them out of the project
          </label>
          <label className="radio">
            <input
              type="radio"
              name="chats"
              value="delete"
              checked={chats === "delete"}
              onChange={() => setChats("delete")}
            />
            Delete them too (this can't be undone)
          </label>
        </fieldset>
        <ErrorLine error={fetcher.data?.error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button danger" disabled={busy}>
            Delete project
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Puts a chat in one of the user's projects, or out of any. */
export function ProjectMoveDialog({
  target,
  projects,
  onNewProject,
  onClose,
}: {
  target: ConversationItem | null;
  projects: ProjectItem[];
  onNewProject: () => void;
  onClose: () => void;
}) {
  return (
    <MoveToPlaceDialog
      place={{ noun: "project", Noun: "Project", intent: "project", field: "project" }}
      target={target}
      current={target?.projectId ?? ""}
      places={projects}
      onNewPlace={onNewProject}
      onClose={onClose}
    />
  );
}

/** A destructive dialog's buttons: Cancel, then the action in red (disabled while it runs). */
function ConfirmDanger({
  label,
  busy,
  onCancel,
  onConfirm,
}: {
  label: string;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <div className="dialog-actions">
      <button type="button" className="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="button" className="button danger" disabled={busy} onClick={onConfirm}>
        {label}
      </button>
    </div>
  );
}
