import { createContext, useCallback, useContext, useEffect, useRef, useState } from "react";
import { PHONE_QUERY, useMedia } from "./use-media";

const STORAGE_KEY = "nuvara.sidebar";

export interface SidebarControl {
  /** Wide screens: the sidebar is hidden (remembered in this browser). */
  collapsed: boolean;
  /** Phones: the conversation list is open as a drawer over the chat. */
  drawerOpen: boolean;
  phone: boolean;
  /** The header's Conversations button: collapses/expands the sidebar, or opens the drawer. */
  toggle: (opener: HTMLElement) => void;
  closeDrawer: (options?: { returnFocus: boolean }) => void;
}

const SidebarContext = createContext<SidebarControl | null>(null);
export const SidebarProvider = SidebarContext.Provider;

export function useSidebar() {
  return useContext(SidebarContext);
}

/** The state behind the conversation sidebar: collapsed on wide screens, a drawer on phones. */
export function useSidebarState(): SidebarControl {
  const phone = useMedia(PHONE_QUERY);
  const [collapsed, setCollapsed] = useState(false);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const openerRef = useRef<HTMLElement | null>(null);

  // Storage may be unavailable (privacy settings): the sidebar then simply starts open.
  useEffect(() => {
    try {
      setCollapsed(localStorage.getItem(STORAGE_KEY) === "collapsed");
    } catch {
      /* keep the default */
    }
  }, []);

  // Growing the window past phone width leaves no drawer behind.
  useEffect(() => {
    if (!phone) setDrawerOpen(false);
  }, [phone]);

  const toggle = useCallback(
    (opener: HTMLElement) => {
      if (phone) {
        openerRef.current = opener;
        setDrawerOpen(true);
        return;
      }
      setCollapsed((was) => {
        try {
          localStorage.setItem(STORAGE_KEY, was ? "open" : "collapsed");
        } catch {
          /* remembered for this page only */
        }
        return !was;
      });
    },
    [phone],
  );

  const returnFocus = useRef(false);
  const closeDrawer = useCallback((options = { returnFocus: true }) => {
    setDrawerOpen(false);
    returnFocus.current = options.returnFocus;
  }, []);

  // Back to the button that opened the drawer — once the drawer has let go of the page (it was inert until now).
  useEffect(() => {
    if (drawerOpen || !returnFocus.current) return;
    returnFocus.current = false;
    openerRef.current?.focus();
  }, [drawerOpen]);

  return { collapsed, drawerOpen, phone, toggle, closeDrawer };
}
