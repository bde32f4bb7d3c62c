const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The elements inside `container` that Tab can reach, in order. */
function tabStops(container: HTMLElement) {
  return [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (element) => element.getClientRects().length > 0 && !element.closest("dialog:not([open])"),
  );
}

/**
 * Keeps focus inside `container` (a drawer over the page): everything else is
 * made inert, so neither Tab nor a screen reader's cursor leaves it, and Tab
 * wraps from the last stop to the first (and back), as in a modal dialog.
 * Escape calls `onEscape` — unless a dialog or a menu opened from inside handles it, or
 * an element marked `data-own-escape` (a rename box: Escape closes it).
 * Returns the undo.
 */
export function trapFocus(container: HTMLElement, onEscape: () => void) {
  const madeInert: Element[] = [];
  for (let node: Element | null = container; node && node !== document.body; node = node.parentElement) {
    for (const sibling of node.parentElement?.children ?? []) {
      // data-outside-trap: the drawer's backdrop, which must still take the click that closes it.
      if (sibling === node || sibling.hasAttribute("inert") || sibling.hasAttribute("data-outside-trap")) continue;
      sibling.setAttribute("inert", "");
      madeInert.push(sibling);
    }
  }

  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.target as Element | null)?.closest("dialog, [data-own-escape]")) return;
    if (event.key === "Escape") {
      // A menu open inside (the settings menu) closes first: one Escape, one thing closed.
      if ((event.target as Element | null)?.closest('[role="menu"]')) return;
      event.preventDefault();
      onEscape();
      return;
    }
    if (event.key !== "Tab") return;
    const stops = tabStops(container);
    if (stops.length === 0) return;
    const first = stops[0];
    const last = stops[stops.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };
  container.addEventListener("keydown", onKeyDown);
  return () => {
    container.removeEventListener("keydown", onKeyDown);
    for (const element of madeInert) element.removeAttribute("inert");
  };
}
