import { useNavigate } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Dialog } from "./dialog";
import { focusComposer } from "./composer";

/** Whether the reader's keyboard has ⌘ rather than Ctrl (decided in the browser). */
function usesCommandKey() {
  return typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
}

/**
 * The assistant's keyboard shortcuts, as in ChatGPT: Ctrl/⌘+Shift+O starts a
 * new chat, Shift+Esc goes to the message box, Ctrl/⌘+/ shows them all.
 * (Esc stopping a reply belongs to the chat itself: chat-view.tsx.)
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

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [mod, setMod] = useState("Ctrl");
  useEffect(() => setMod(usesCommandKey() ? "⌘" : "Ctrl"), []);
  const rows: Array<[string, string[]]> = [
    ["New chat", [mod, "Shift", "O"]],
    ["Go to the message box", ["Shift", "Esc"]],
    ["Send the message", ["Enter"]],
    ["New line in the message", ["Shift", "Enter"]],
    ["Stop the reply", ["Esc"]],
    ["Show these shortcuts", [mod, "/"]],
  ];
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts">
      <table className="shortcuts">
        <tbody>
          {rows.map(([action, keys]) => (
            <tr key={action}>
              <th scope="row">{action}</th>
              <td>
                {keys.map((key, index) => (
                  <span key={key}>
                    {index > 0 ? " + " : null}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
