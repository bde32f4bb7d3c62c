import { useEffect, useState } from "react";
import { Dialog } from "./dialog";

/** Whether the reader's keyboard has ⌘ rather than Ctrl (decided in the browser). */
function usesCommandKey() {
  return typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
}

/** The list of shortcuts (Ctrl/⌘+/), loaded when first shown (shortcuts.tsx has the keys themselves). */
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
