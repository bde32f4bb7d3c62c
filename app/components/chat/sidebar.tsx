import { Form, Link, useFetcher, useLocation, useNavigate, useSubmit } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState, type DragEvent, type ReactNode } from "react";
import { arrangeConversations, groupByDay } from "~/chat/grouping";
import { ConversationEntry, DRAGGED_CHAT, type RowRequest } from "./conversation-entry";
import { useFolderExpanded } from "./folder-expanded";
import { MenuButton } from "./menu-button";
import {
  BulkDeleteDialog,
  DeleteDialog,
  DeleteFolderDialog,
  DeleteProjectDialog,
  FolderNameDialog,
  MoveDialog,
  ProjectDialog,
  ProjectMoveDialog,
} from "./sidebar-dialogs";
import { newChatInProject } from "./project-link";
import { useSidebar } from "./sidebar-state";
import { trapFocus } from "./focus-trap";
import { useHydrated } from "./use-hydrated";
import { PHONE_QUERY, useMedia } from "./use-media";

export type { ConversationItem, FolderItem, ProjectItem } from "./conversation-item";
import type { ConversationItem, FolderItem, ProjectItem } from "./conversation-item";

export type ListView = "active" | "archived";

const SEARCH_DELAY_MS = 250;

type Dialogs =
  | RowRequest
  | { kind: "new-folder" }
  | { kind: "rename-folder"; folder: FolderItem }
  | { kind: "delete-folder"; folder: FolderItem }
  | { kind: "new-project" }
  | { kind: "edit-project"; project: ProjectItem }
  | { kind: "delete-project"; project: ProjectItem }
  | { kind: "bulk-delete" }
  | null;

/**
 * The conversation list: New chat, search over titles and messages, then
 * pinned chats, projects (each with its chats; docs/decisions/106), folders
 * and the loose chats by day, each with its actions
 * behind "⋯"; a Select mode for several chats at once; the Archived view.
 * On narrow screens a drawer over the chat: while open, focus stays inside;
 * Escape or Close closes it.
 */
export function ConversationSidebar({
  conversations,
  folders = [],
  projects = [],
  view = "active",
  search,
  activeId,
  open,
  onClose,
  footer,
}: {
  conversations: ConversationItem[];
  folders?: FolderItem[];
  projects?: ProjectItem[];
  view?: ListView;
  search: string;
  activeId: string | null;
  /** Open as a drawer (phones). */
  open: boolean;
  onClose: () => void;
  footer: ReactNode;
}) {
  const navRef = useRef<HTMLElement>(null);
  const [dialog, setDialog] = useState<Dialogs>(null);
  const closeDialog = useCallback(() => setDialog(null), []);
  const selection = useSelection(conversations);

  useEffect(() => {
    const nav = navRef.current;
    if (!open || !nav) return;
    const release = trapFocus(nav, onClose);
    nav.querySelector<HTMLElement>(".drawer-close")?.focus();
    return release;
  }, [open, onClose]);

  const rowProps = {
    activeId,
    selecting: selection.on,
    selected: selection.ids,
    onSelect: selection.toggle,
    onRequest: setDialog,
  };
  const archivedView = view === "archived" && !search;
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
      <ListTools
        selecting={selection.on}
        canSelect={conversations.some((item) => !item.pending)}
        archivedView={archivedView}
        onSelectMode={selection.setOn}
        onNewFolder={() => setDialog({ kind: "new-folder" })}
      />
      {selection.on ? (
        <BulkBar
          ids={selection.list}
          archivedView={archivedView}
          onDelete={() => setDialog({ kind: "bulk-delete" })}
          onDone={selection.stop}
        />
      ) : null}
      <div className="conversation-groups">
        {archivedView ? (
          <ArchivedList conversations={conversations} {...rowProps} />
        ) : (
          <OrganisedList
            conversations={conversations}
            folders={search ? [] : folders}
            projects={search ? [] : projects}
            search={search}
            onFolder={setDialog}
            {...rowProps}
          />
        )}
      </div>
      <ViewLink archivedView={archivedView} />
      <div className="sidebar-footer">{footer}</div>
      <DeleteDialog target={dialog?.kind === "delete" ? dialog.item : null} activeId={activeId} onClose={closeDialog} />
      <MoveDialog
        target={dialog?.kind === "move" ? dialog.item : null}
        folders={folders}
        onNewFolder={() => setDialog({ kind: "new-folder" })}
        onClose={closeDialog}
      />
      <ProjectMoveDialog
        target={dialog?.kind === "project" ? dialog.item : null}
        projects={projects}
        onNewProject={() => setDialog({ kind: "new-project" })}
        onClose={closeDialog}
      />
      <ProjectDialog
        key={dialog?.kind === "edit-project" ? dialog.project.id : "new-project"}
        open={dialog?.kind === "new-project" || dialog?.kind === "edit-project"}
        project={dialog?.kind === "edit-project" ? dialog.project : null}
        onClose={closeDialog}
      />
      <DeleteProjectDialog
        project={dialog?.kind === "delete-project" ? dialog.project : null}
        chatIds={
          dialog?.kind === "delete-project"
            ? conversations.filter((item) => item.projectId === dialog.project.id).map((item) => item.id)
            : []
        }
        activeId={activeId}
        onClose={closeDialog}
      />
      <FolderNameDialog
        key={dialog?.kind === "rename-folder" ? dialog.folder.id : "new"}
        open={dialog?.kind === "new-folder" || dialog?.kind === "rename-folder"}
        folder={dialog?.kind === "rename-folder" ? dialog.folder : null}
        onClose={closeDialog}
      />
      <DeleteFolderDialog
        folder={dialog?.kind === "delete-folder" ? dialog.folder : null}
        count={
          dialog?.kind === "delete-folder"
            ? conversations.filter((item) => item.folderId === dialog.folder.id).length
            : 0
        }
        onClose={closeDialog}
      />
      <BulkDeleteDialog
        ids={selection.list}
        open={dialog?.kind === "bulk-delete"}
        activeId={activeId}
        onDone={() => {
          closeDialog();
          selection.stop();
        }}
        onClose={closeDialog}
      />
    </nav>
  );
}

/** Which chats are ticked in Select mode; a chat that leaves the list leaves the selection. */
function useSelection(conversations: ConversationItem[]) {
  const [on, setOn] = useState(false);
  const [ids, setIds] = useState<ReadonlySet<string>>(new Set());
  const listed = new Set(conversations.map((item) => item.id));
  const list = [...ids].filter((id) => listed.has(id));
  const toggle = useCallback((id: string, checked: boolean) => {
    setIds((current) => {
      const next = new Set(current);
      if (checked) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);
  const stop = useCallback(() => {
    setOn(false);
    setIds(new Set());
  }, []);
  return { on, setOn: (value: boolean) => (value ? setOn(true) : stop()), ids, list, toggle, stop };
}

function ListTools({
  selecting,
  canSelect,
  archivedView,
  onSelectMode,
  onNewFolder,
}: {
  selecting: boolean;
  canSelect: boolean;
  archivedView: boolean;
  onSelectMode: (on: boolean) => void;
  onNewFolder: () => void;
}) {
  return (
    <div className="list-tools">
      {archivedView ? <h2 className="list-title">Archived chats</h2> : null}
      {/* Its name says what it does next (Select, Done): no pressed state besides. */}
      {canSelect || selecting ? (
        <button type="button" className="chip-button" onClick={() => onSelectMode(!selecting)}>
          {selecting ? "Done" : "Select"}
        </button>
      ) : null}
      {archivedView ? null : (
        <button type="button" className="chip-button" onClick={onNewFolder}>
          New folder
        </button>
      )}
    </div>
  );
}

/** Select mode's actions on the ticked chats. */
function BulkBar({
  ids,
  archivedView,
  onDelete,
  onDone,
}: {
  ids: string[];
  archivedView: boolean;
  onDelete: () => void;
  onDone: () => void;
}) {
  const archive = useFetcher<{ ok?: boolean; error?: string }>();
  const waiting = useRef(false);
  useEffect(() => {
    if (archive.state !== "idle" || !waiting.current) return;
    waiting.current = false;
    if (archive.data?.ok) onDone();
  }, [archive.state, archive.data, onDone]);
  const none = ids.length === 0;
  return (
    <div className="bulk-bar" role="group" aria-label="Selected chats">
      <span className="bulk-count" role="status">
        {ids.length} selected
      </span>
      {archivedView ? null : (
        <button
          type="button"
          className="chip-button"
          disabled={none || archive.state !== "idle"}
          onClick={() => {
            waiting.current = true;
            archive.submit(new URLSearchParams([["intent", "bulk-archive"], ...ids.map((id) => ["id", id])]), {
              method: "post",
              action: "/nuvara",
            });
          }}
        >
          Archive
        </button>
      )}
      <button type="button" className="chip-button danger" disabled={none} onClick={onDelete}>
        Delete
      </button>
      {archive.state === "idle" && archive.data?.error ? (
        <p className="form-error" role="alert">
          {archive.data.error}
        </p>
      ) : null}
    </div>
  );
}

interface RowProps {
  activeId: string | null;
  selecting: boolean;
  selected: ReadonlySet<string>;
  onSelect: (id: string, on: boolean) => void;
  onRequest: (request: RowRequest) => void;
}

function Rows({ items, draggable = false, ...row }: RowProps & { items: ConversationItem[]; draggable?: boolean }) {
  return (
    <ul className="conversation-items">
      {items.map((item) => (
        <ConversationEntry
          key={item.id}
          item={item}
          active={item.id === row.activeId}
          selecting={row.selecting}
          selected={row.selected.has(item.id)}
          onSelect={row.onSelect}
          onRequest={row.onRequest}
          draggable={draggable}
        />
      ))}
    </ul>
  );
}

/** Pinned, then projects, then folders, then the loose chats by day (app/chat/grouping.ts). */
function OrganisedList({
  conversations: all,
  folders,
  projects,
  search,
  onFolder,
  ...row
}: RowProps & {
  conversations: ConversationItem[];
  folders: FolderItem[];
  projects: ProjectItem[];
  search: string;
  onFolder: (dialog: Dialogs) => void;
}) {
  // A project's chats are listed under it (a pinned one among the pinned); one whose project is not known is loose.
  const known = new Set(projects.map((project) => project.id));
  const inProject = (item: ConversationItem) => !item.pinned && Boolean(item.projectId && known.has(item.projectId));
  const conversations = all.filter((item) => !inProject(item));
  const projectChats = all.filter(inProject);
  // Grouped by the reader's own calendar once in the browser; by UTC in the server's render.
  const hydrated = useHydrated();
  // Dragging a chat onto a folder is a shortcut on desktop; the row's menu does the same everywhere.
  const phone = useMedia(PHONE_QUERY);
  const draggable = hydrated && !phone;
  const arranged = arrangeConversations(conversations, folders, new Date(), hydrated ? undefined : "UTC");
  const drop = useDropToFolder();
  const projectGroup = search ? null : (
    <ProjectsGroup projects={projects} onProject={onFolder}>
      {(project) => (
        <Rows items={projectChats.filter((item) => item.projectId === project.id)} draggable={draggable} {...row} />
      )}
    </ProjectsGroup>
  );
  if (all.length === 0 && folders.length === 0) {
    return (
      <>
        {projectGroup}
        <p className="fine-print">{search ? `No conversations match “${search}”.` : "No conversations yet."}</p>
      </>
    );
  }
  return (
    <>
      {arranged.pinned.length > 0 ? (
        <section aria-label="Pinned">
          <h2 className="group-label">Pinned</h2>
          <Rows items={arranged.pinned} draggable={draggable} {...row} />
        </section>
      ) : null}
      {projectGroup}
      {arranged.folders.map(({ folder, items }) => (
        <FolderSection key={folder.id} folder={folder} drop={drop} onFolder={onFolder}>
          <Rows items={items} draggable={draggable} {...row} />
        </FolderSection>
      ))}
      <div className="loose-chats" {...drop.target(null)}>
        {arranged.days.map((group) => (
          <section key={group.label} aria-label={group.label}>
            <h2 className="group-label">{group.label}</h2>
            <Rows items={group.items} draggable={draggable} {...row} />
          </section>
        ))}
      </div>
      {drop.error ? (
        <p className="form-error" role="alert">
          {drop.error}
        </p>
      ) : null}
    </>
  );
}

/** Drop targets for dragged rows: a folder, or the loose list (out of any folder). */
function useDropToFolder() {
  const fetcher = useFetcher<{ ok?: boolean; error?: string }>();
  const [over, setOver] = useState<string | null | undefined>(undefined);
  const target = (folderId: string | null) => ({
    "data-drop-over": over === folderId ? "" : undefined,
    onDragOver: (event: DragEvent) => {
      if (!event.dataTransfer.types.includes(DRAGGED_CHAT)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      setOver(folderId);
    },
    onDragLeave: () => setOver(undefined),
    onDrop: (event: DragEvent) => {
      const id = event.dataTransfer.getData(DRAGGED_CHAT);
      setOver(undefined);
      if (!id) return;
      event.preventDefault();
      fetcher.submit({ intent: "move", folder: folderId ?? "" }, { method: "post", action: `/nuvara/${id}` });
    },
  });
  return { target, error: fetcher.state === "idle" ? fetcher.data?.error : undefined };
}

function FolderSection({
  folder,
  drop,
  onFolder,
  children,
}: {
  folder: FolderItem;
  drop: ReturnType<typeof useDropToFolder>;
  onFolder: (dialog: Dialogs) => void;
  children: ReactNode;
}) {
  const [expanded, toggleExpanded] = useFolderExpanded(folder.id);
  return (
    <section aria-label={`Folder ${folder.name}`} className="folder" {...drop.target(folder.id)}>
      <div className="folder-head">
        <h2 className="group-label folder-label">
          <button type="button" className="folder-toggle" aria-expanded={expanded} onClick={toggleExpanded}>
            <span className="folder-caret" aria-hidden="true">
              {expanded ? "▾" : "▸"}
            </span>
            {folder.name}
          </button>
        </h2>
        <span className="item-actions">
          <MenuButton
            label={`Actions for folder “${folder.name}”`}
            items={[
              { label: "Rename folder", onSelect: () => onFolder({ kind: "rename-folder", folder }) },
              { label: "Delete folder", onSelect: () => onFolder({ kind: "delete-folder", folder }), danger: true },
            ]}
          />
        </span>
      </div>
      {expanded ? children : null}
    </section>
  );
}

/** The Projects group: its heading with New project, then each project, open or closed, with its chats. */
function ProjectsGroup({
  projects,
  onProject,
  children,
}: {
  projects: ProjectItem[];
  onProject: (dialog: Dialogs) => void;
  children: (project: ProjectItem) => ReactNode;
}) {
  return (
    <section aria-labelledby="projects-label" className="projects">
      <div className="folder-head">
        <h2 id="projects-label" className="group-label">
          Projects
        </h2>
        <button type="button" className="chip-button" onClick={() => onProject({ kind: "new-project" })}>
          New project
        </button>
      </div>
      {projects.map((project) => (
        <ProjectSection key={project.id} project={project} onProject={onProject}>
          {children(project)}
        </ProjectSection>
      ))}
    </section>
  );
}

function ProjectSection({
  project,
  onProject,
  children,
}: {
  project: ProjectItem;
  onProject: (dialog: Dialogs) => void;
  children: ReactNode;
}) {
  const [expanded, toggleExpanded] = useFolderExpanded(project.id);
  const navigate = useNavigate();
  const sidebar = useSidebar();
  const newChat = () => {
    navigate(newChatInProject(project.id));
    // Only the query changes (/nuvara?project=…): the drawer closes here, as for any chat chosen in it.
    sidebar?.closeDrawer({ returnFocus: false });
  };
  return (
    <section aria-label={`Project ${project.name}`} className="folder project">
      <div className="folder-head">
        <h3 className="group-label folder-label">
          <button type="button" className="folder-toggle" aria-expanded={expanded} onClick={toggleExpanded}>
            <span className="folder-caret" aria-hidden="true">
              {expanded ? "▾" : "▸"}
            </span>
            {project.name}
          </button>
        </h3>
        <span className="item-actions">
          <MenuButton
            label={`Actions for project “${project.name}”`}
            items={[
              { label: "New chat in project", onSelect: newChat },
              { label: "Edit project", onSelect: () => onProject({ kind: "edit-project", project }) },
              { label: "Delete project", onSelect: () => onProject({ kind: "delete-project", project }), danger: true },
            ]}
          />
        </span>
      </div>
      {expanded ? children : null}
    </section>
  );
}

function ArchivedList({ conversations, ...row }: RowProps & { conversations: ConversationItem[] }) {
  const hydrated = useHydrated();
  const groups = groupByDay(conversations, new Date(), hydrated ? undefined : "UTC");
  if (groups.length === 0) return <p className="fine-print">No archived chats.</p>;
  return groups.map((group) => (
    <section key={group.label} aria-label={group.label}>
      <h2 className="group-label">{group.label}</h2>
      <Rows items={group.items} {...row} />
    </section>
  ));
}

/** Between the list in use and the Archived view; the conversation open stays open. */
function ViewLink({ archivedView }: { archivedView: boolean }) {
  const location = useLocation();
  return (
    <p className="view-link">
      {archivedView ? (
        <Link to={location.pathname}>← Back to chats</Link>
      ) : (
        <Link to={`${location.pathname}?view=archived`}>Archived chats</Link>
      )}
    </p>
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
