import { Form, Link, NavLink, useFetcher, useLocation, useNavigate, useSubmit } from "@remix-run/react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { groupByDay } from "~/chat/grouping";
import { forgetChat } from "./chat-sessions";
import { Dialog } from "./dialog";
import { trapFocus } from "./focus-trap";
import { useHydrated } from "./use-hydrated";

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
}

const SEARCH_DELAY_MS = 250;

/**
 * The conversation list: New chat, search over titles and messages, the
 * conversations by day, and rename and delete. On narrow screens a drawer
 * over the chat: while open, focus stays inside; Escape or Close closes it.
 */
export function ConversationSidebar({
  conversations,
  search,
  activeId,
  open,
  onClose,
  footer,
}: {
  conversations: ConversationItem[];
  search: string;
  activeId: string | null;
  /** Open as a drawer (phones). */
  open: boolean;
  onClose: () => void;
  footer: ReactNode;
}) {
  // Grouped by the reader's own calendar once in the browser; by UTC in the server's render.
  const hydrated = useHydrated();
  const groups = groupByDay(conversations, new Date(), hydrated ? undefined : "UTC");
  const [deleting, setDeleting] = useState<ConversationItem | null>(null);
  const navRef = useRef<HTMLElement>(null);

  useEffect(() => {
    const nav = navRef.current;
    if (!open || !nav) return;
    const release = trapFocus(nav, onClose);
    nav.querySelector<HTMLElement>(".drawer-close")?.focus();
    return release;
  }, [open, onClose]);

  return (
    <nav ref={navRef} id="conversation-list" aria-label="Conversations" className={open ? "sidebar open" : "sidebar"}>
      <div className="sidebar-top">
        <h1>Assistant</h1>
        <Link to="/nuvara" className="button primary">
          New chat
        </Link>
        <button type="button" className="icon-button drawer-close" aria-label="Close conversations" onClick={onClose}>
          <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
            <path d="M5 5l10 10M15 5L5 15" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" fill="none" />
          </svg>
        </button>
      </div>
      <SearchBox search={search} />
      <div className="conversation-groups">
        {groups.length === 0 ? (
          <p className="fine-print">{search ? `No conversations match “${search}”.` : "No conversations yet."}</p>
        ) : (
          groups.map((group) => (
            <section key={group.label} aria-label={group.label}>
              <h2 className="group-label">{group.label}</h2>
              <ul className="conversation-items">
                {group.items.map((item) => (
                  <ConversationEntry
                    key={item.id}
                    item={item}
                    active={item.id === activeId}
                    onDelete={() => setDeleting(item)}
                  />
                ))}
              </ul>
            </section>
          ))
        )}
      </div>
      <div className="sidebar-footer">{footer}</div>
      <DeleteDialog target={deleting} activeId={activeId} onClose={() => setDeleting(null)} />
    </nav>
  );
}

function SearchBox({ search }: { search: string }) {
  const submit = useSubmit();
  const location = useLocation();
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    // Searching keeps the conversation that is open.
    <Form method="get" action={location.pathname} role="search" className="conversation-search">
      <input
        type="search"
        name="q"
        aria-label="Search conversations"
        placeholder="Search conversations"
        defaultValue={search}
        onChange={(event) => {
          const form = event.currentTarget.form;
          clearTimeout(timer.current);
          timer.current = setTimeout(() => submit(form, { replace: true, preventScrollReset: true }), SEARCH_DELAY_MS);
        }}
      />
    </Form>
  );
}

function ConversationEntry({
  item,
  active,
  onDelete,
}: {
  item: ConversationItem;
  active: boolean;
  onDelete: () => void;
}) {
  const [renaming, setRenaming] = useState(false);
  const fetcher = useFetcher<{ ok?: boolean; error?: string }>();
  const title = item.title ?? "New chat";
  const pendingTitle = fetcher.formData?.get("title");
  const shownTitle = typeof pendingTitle === "string" ? pendingTitle : title;

  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok) setRenaming(false);
  }, [fetcher.state, fetcher.data]);

  if (renaming) {
    return (
      <li className="conversation-item renaming">
        <fetcher.Form method="post" action={`/nuvara/${item.id}`} className="rename-form">
          <input type="hidden" name="intent" value="rename" />
          <input name="title" aria-label="New title" defaultValue={title} maxLength={120} required autoFocus />
          <button type="submit" className="chip-button">
            Save
          </button>
          <button type="button" className="chip-button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
          {fetcher.data?.error ? (
            <p className="form-error" role="alert">
              {fetcher.data.error}
            </p>
          ) : null}
        </fetcher.Form>
      </li>
    );
  }
  return (
    <li className={active ? "conversation-item active" : "conversation-item"}>
      <NavLink to={`/nuvara/${item.id}`} aria-current={active ? "page" : undefined}>
        {shownTitle}
        {item.writing ? <span className="writing-note">still writing…</span> : null}
      </NavLink>
      {item.pending ? null : (
        <span className="item-actions">
          <button
            type="button"
            className="icon-button"
            aria-label={`Rename “${title}”`}
            onClick={() => setRenaming(true)}
          >
            ✎
          </button>
          <button type="button" className="icon-button" aria-label={`Delete “${title}”`} onClick={onDelete}>
            ×
          </button>
        </span>
      )}
    </li>
  );
}

function DeleteDialog({
  target,
  activeId,
  onClose,
}: {
  target: ConversationItem | null;
  activeId: string | null;
  onClose: () => void;
}) {
  const fetcher = useFetcher<{ ok?: boolean; error?: string }>();
  const navigate = useNavigate();
  const [deletedId, setDeletedId] = useState<string | null>(null);

  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data?.ok || !deletedId) return;
    forgetChat(deletedId);
    if (deletedId === activeId) navigate("/nuvara", { replace: true });
    setDeletedId(null);
    onClose();
  }, [fetcher.state, fetcher.data, deletedId, activeId, navigate, onClose]);

  return (
    <Dialog open={target !== null} onClose={onClose} title="Delete this conversation?">
      <p>“{target?.title ?? "New chat"}” and all its messages will be deleted. This can't be undone.</p>
      {fetcher.data?.error ? (
        <p className="form-error" role="alert">
          {fetcher.data.error}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="button danger"
          disabled={fetcher.state !== "idle"}
          onClick={() => {
            if (!target) return;
            setDeletedId(target.id);
            fetcher.submit({ intent: "delete" }, { method: "post", action: `/nuvara/${target.id}` });
          }}
        >
          Delete
        </button>
      </div>
    </Dialog>
  );
}
