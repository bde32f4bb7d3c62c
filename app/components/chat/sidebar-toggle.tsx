import { Link } from "@remix-run/react";
import { useSidebar } from "./sidebar-state";
import { useHydrated } from "./use-hydrated";

/**
 * The chat header's start: the Conversations button (hides or shows the
 * sidebar; on a phone, opens the drawer) and, while the list is out of
 * sight, a New chat link.
 */
export function SidebarToggle() {
  const sidebar = useSidebar();
  const hydrated = useHydrated();
  if (!sidebar) return null;
  const expanded = sidebar.phone ? sidebar.drawerOpen : !sidebar.collapsed;
  return (
    <div className="sidebar-toggle">
      <button
        type="button"
        className="icon-button header-button"
        aria-label="Conversations"
        title={sidebar.phone ? "Conversations" : expanded ? "Hide conversations" : "Show conversations"}
        aria-expanded={expanded}
        aria-controls="conversation-list"
        // Before the page is live a press would do nothing: it waits, like Send.
        disabled={!hydrated}
        onClick={(event) => sidebar.toggle(event.currentTarget)}
      >
        <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
          <path d="M3 5h14M3 10h14M3 15h14" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" fill="none" />
        </svg>
      </button>
      {!expanded ? (
        <Link to="/nuvara" className="icon-button header-button" aria-label="New chat" title="New chat">
          <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
            <path d="M10 4v12M4 10h12" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" fill="none" />
          </svg>
        </Link>
      ) : null}
    </div>
  );
}
