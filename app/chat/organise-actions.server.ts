import { json } from "@remix-run/node";
import type { Db } from "~/db/client.server";
import {
  createFolder,
  deleteConversations,
  deleteFolder,
  MAX_FOLDER_NAME_LENGTH,
  renameFolder,
  setArchived,
} from "~/data/conversations.server";
import { isUuid } from "~/ids/uuid";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";

/**
 * What POST /nuvara does to organise the list (docs/decisions/085): folders
 * made, renamed and deleted, and several chats archived or deleted at once.
 * Only the user's own rows are ever touched; anything else answers 4xx with
 * a message fit to show.
 */

/** The most chats one request may name (the list shows at most 200). */
export const MAX_SELECTED = 200;

const FOLDER_NOT_FOUND = "That folder doesn't exist any more. Reload the page to see your folders.";

export async function organiseIntent(db: Db, uid: string, form: FormData) {
  const intent = form.get("intent");
  if (intent === "folder-create") {
    const name = folderName(form);
    if (typeof name !== "string") return name;
    return json({ ok: true, folder: await createFolder(db, uid, name) });
  }
  if (intent === "folder-rename" || intent === "folder-delete") {
    const id = String(form.get("folder") ?? "");
    if (!isUuid(id)) return json({ error: FOLDER_NOT_FOUND }, { status: 404 });
    if (intent === "folder-delete") {
      return (await deleteFolder(db, uid, id))
        ? json({ ok: true })
        : json({ error: FOLDER_NOT_FOUND }, { status: 404 });
    }
    const name = folderName(form);
    if (typeof name !== "string") return name;
    return (await renameFolder(db, uid, id, name))
      ? json({ ok: true })
      : json({ error: FOLDER_NOT_FOUND }, { status: 404 });
  }
  if (intent === "bulk-archive" || intent === "bulk-delete") {
    const ids = selectedIds(form);
    if (!Array.isArray(ids)) return ids;
    const count =
      intent === "bulk-archive" ? await setArchived(db, uid, ids, true) : await deleteConversations(db, uid, ids);
    return json({ ok: true, count });
  }
  return json({ error: "Unknown action." }, { status: 400 });
}

/** The folder's name, tidied, or the 400 that says what is wrong with it. */
function folderName(form: FormData): string | Response {
  const name = String(form.get("name") ?? "")
    .replace(/\s+/g, " ")
    .trim();
  if (!name) return json({ error: "Please enter a folder name." }, { status: 400 });
  if (!isStorableText(name)) return json({ error: UNSTORABLE_TEXT_MESSAGE }, { status: 400 });
  if (name.length > MAX_FOLDER_NAME_LENGTH) {
    return json(
      { error: `Please keep the folder name to ${MAX_FOLDER_NAME_LENGTH} characters or fewer.` },
      { status: 400 },
    );
  }
  return name;
}

/** The chats a bulk action names (`id` fields), or the 400 that says what is wrong. */
function selectedIds(form: FormData): string[] | Response {
  const ids = [...new Set(form.getAll("id").map(String))];
  if (ids.length === 0) return json({ error: "Select at least one chat." }, { status: 400 });
  if (ids.length > MAX_SELECTED) {
    return json({ error: `Select at most ${MAX_SELECTED} chats at a time.` }, { status: 400 });
  }
  // Not a UUID: no chat has that id (and PostgreSQL would refuse to compare).
  if (!ids.every(isUuid)) return json({ error: "Some of the selected chats don't exist." }, { status: 400 });
  return ids;
}
