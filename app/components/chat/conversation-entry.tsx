import { NavLink, useFetcher } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { MenuButton, type MenuItem } from "./menu-button";
import type { ConversationItem } from "./conversation-item";

/** What a row asks the list to do: open a dialog (delete, move). */
export type RowRequest = { kind: "delete" | "move" | "project"; item: ConversationItem };

/** The MIME type a dragged row carries (its id): dropped on a folder, it is filed there. */
export const DRAGGED_CHAT = "application/x-nuvara-chat";

/**
 * One conversation in the list: its link, and its actions behind "⋯"
 * (rename, pin, move to a folder, move to or out of a project, archive or
 * restore, delete). In select
 * mode, a checkbox. Renaming happens in place; Escape or Cancel gives up.
 */
export function ConversationEntry({
  item,
  active,
  selecting,
  selected,
  onSelect,
  onRequest,
  draggable,
}: {
  item: ConversationItem;
  active: boolean;
  selecting: boolean;
  selected: boolean;
  onSelect: (id: string, on: boolean) => void;
  onRequest: (request: RowRequest) => void;
  draggable: boolean;
}) {
  const [renaming, setRenaming] = useState(false);
  const rename = useFetcher<{ ok?: boolean; error?: string }>();
  const change = useFetcher<{ ok?: boolean; error?: string }>();
  const menuRef = useRef<HTMLSpanElement>(null);
  const wasRenaming = useRef(false);
  const title = item.title ?? "New chat";
  const pendingTitle = rename.formData?.get("title");
  const shownTitle = typeof pendingTitle === "string" ? pendingTitle : title;

  useEffect(() => {
    if (rename.state === "idle" && rename.data?.ok) setRenaming(false);
  }, [rename.state, rename.data]);

  // Back from renaming (saved or not): the focus returns to the row's menu button.
  useEffect(() => {
    if (wasRenaming.current && !renaming) menuRef.current?.querySelector("button")?.focus();
    wasRenaming.current = renaming;
  }, [renaming]);

  const post = (intent: string) => change.submit({ intent }, { method: "post", action: `/nuvara/${item.id}` });

  if (renaming) {
    return (
      <li className="conversation-item renaming">
        <rename.Form method="post" action={`/nuvara/${item.id}`} className="rename-form" data-own-escape="">
          <input type="hidden" name="intent" value="rename" />
          <input
            name="title"
            aria-label="New title"
            defaultValue={title}
            maxLength={120}
            required
            autoFocus
            onKeyDown={(event) => {
              if (event.key !== "Escape") return;
              event.preventDefault();
              setRenaming(false);
            }}
          />
          <button type="submit" className="chip-button">
            Save
          </button>
          <button type="button" className="chip-button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
          {rename.data?.error ? (
            <p className="form-error" role="alert">
              {rename.data.error}
            </p>
          ) : null}
        </rename.Form>
      </li>
    );
  }

  const actions: MenuItem[] = item.archived
    ? [
        { label: "Restore", onSelect: () => post("restore") },
        { label: "Delete", onSelect: () => onRequest({ kind: "delete", item }), danger: true },
      ]
    : [
        { label: "Rename", onSelect: () => setRenaming(true) },
        { label: item.pinned ? "Unpin" : "Pin", onSelect: () => post(item.pinned ? "unpin" : "pin") },
        { label: "Move to folder…", onSelect: () => onRequest({ kind: "move", item }) },
        { label: "Move to project…", onSelect: () => onRequest({ kind: "project", item }) },
        ...(item.projectId
          ? [
              {
                label: "Remove from project",
                onSelect: () =>
                  change.submit({ intent: "project", project: "" }, { method: "post", action: `/nuvara/${item.id}` }),
              },
            ]
          : []),
        { label: "Archive", onSelect: () => post("archive") },
        { label: "Delete", onSelect: () => onRequest({ kind: "delete", item }), danger: true },
      ];
  const classes = ["conversation-item", active && "active", selected && "selected"].filter(Boolean).join(" ");
  return (
    <li
      className={classes}
      draggable={draggable && !item.pending && !selecting}
      onDragStart={(event) => {
        event.dataTransfer.setData(DRAGGED_CHAT, item.id);
        event.dataTransfer.effectAllowed = "move";
      }}
    >
      {selecting && !item.pending ? (
        <input
          type="checkbox"
          className="select-box"
          aria-label={`Select “${title}”`}
          checked={selected}
          onChange={(event) => onSelect(item.id, event.currentTarget.checked)}
        />
      ) : null}
      <NavLink to={`/nuvara/${item.id}`} aria-current={active ? "page" : undefined}>
        {shownTitle}
        {item.archived ? <span className="row-note">archived</span> : null}
        {item.writing ? <span className="writing-note">still writing…</span> : null}
      </NavLink>
      {item.pending || selecting ? null : (
        <span className="item-actions" ref={menuRef}>
          <MenuButton label={`Actions for “${title}”`} items={actions} />
        </span>
      )}
      {change.state === "idle" && change.data?.error ? (
        <p className="form-error row-error" role="alert">
          {change.data.error}
        </p>
      ) : null}
    </li>
  );
}
