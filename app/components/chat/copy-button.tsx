import { useEffect, useState } from "react";

/** Copies `text` to the clipboard and says so for a moment (also to screen readers). */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2_000);
    return () => clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
  }

  const shown = state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : label;
  // The name keeps saying what the button does and contains the words shown (WCAG 2.5.3, label in name).
  return (
    <button
      type="button"
      className="chip-button"
      onClick={copy}
      aria-label={state === "idle" ? label : `${label}: ${shown}`}
    >
      <span aria-live="polite">{shown}</span>
    </button>
  );
}
