import { useNavigate } from "@remix-run/react";
import { lazy, Suspense, useEffect } from "react";
import { useOpenedOnce } from "./opened-once";
import { focusComposer } from "./composer";

// The list is fetched when first shown: not part of the page's first load (ADR 051).
const LazyShortcutsDialog = lazy(() =>
  import("./shortcuts-dialog").then((module) => ({
    default: module.ShortcutsDialog,
  })),
);

/**
 * The assistant's keyboard shortcuts, as in ChatGPT: Ctrl/⌘+Shift+O starts a
 * new chat, Shift+Esc goes to the message box, Ctrl/⌘+/ shows them all.
 * (Esc stopping a reply belongs to the chat itself: use-chat-controller.ts, stopOnEscape.)
 */
export function useChatShortcuts(openHelp: () => void) {
  const navigate = useNavigate();
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      // A dialog that is open keeps its keys (Escape closes it).
      if ((event.target as Element | null)?.closest?.("dialog[open]")) return;
      const mod = event.ctrlKey || event.metaKey;
      if (mod && event.shiftKey && event.key.toLowerCase() === "o") {
        event.preventDefault();
        navigate("/nuvara");
      } else if (event.shiftKey && !mod && event.key === "Escape") {
        event.preventDefault();
        focusComposer();
      } else if (mod && !event.shiftKey && event.key === "/") {
        event.preventDefault();
        openHelp();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [navigate, openHelp]);
}

/** The shortcuts' list (Ctrl/⌘+/ or "Keyboard shortcuts"), mounted from its first opening. */
export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const loaded = useOpenedOnce(open);
  return loaded ? (
    <Suspense fallback={null}>
      <LazyShortcutsDialog open={open} onClose={onClose} />
    </Suspense>
  ) : null;
}
