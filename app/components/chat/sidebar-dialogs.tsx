import { useFetcher, useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { forgetChat } from "./chat-sessions";
import { Dialog } from "./dialog";
import type { ConversationItem, FolderItem } from "./conversation-item";

/**
 * The list's dialogs: delete one chat or the selected ones, move a chat to a
 * folder, name a folder, delete a folder. Each posts one form and closes once
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
  const { fetcher, submit, busy } = useSubmitThen(onClose);
  const [choice, setChoice] = useState("");
  useEffect(() => setChoice(target?.folderId ?? ""), [target]);
  return (
    <Dialog open={target !== null} onClose={onClose} title="Move to folder">
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (target) submit({ intent: "move", folder: choice }, `/nuvara/${target.id}`);
        }}
      >
        <label className="field">
          <span>Folder for “{target?.title ?? "New chat"}”</span>
          <select value={choice} onChange={(event) => setChoice(event.currentTarget.value)}>
            <option value="">No folder</option>
            {folders.map((folder) => (
              <option key={folder.id} value={folder.id}>
                {folder.name}
              </option>
            ))}
          </select>
        </label>
        {folders.length === 0 ? <p className="fine-print">You have no folders yet.</p> : null}
        <ErrorLine error={fetcher.data?.error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onNewFolder}>
            New folder
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
