import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";

export interface MenuItem {
  label: string;
  onSelect: () => void;
  danger?: boolean;
}

/**
 * A button that opens a menu of actions (the WAI-ARIA menu button pattern):
 * Enter, Space or ↓ open it on the first item, ↑ on the last; ↑ ↓ Home End
 * move between items; Escape closes it and gives the focus back to the
 * button; Tab or a click elsewhere closes it. `data-own-escape` keeps a
 * drawer's focus trap from taking that Escape (app/components/chat/focus-trap.ts).
 */
export function MenuButton({
  label,
  items,
  className = "",
  icon = "⋯",
}: {
  /** The button's accessible name, e.g. Actions for “Lisbon trip”. */
  label: string;
  items: MenuItem[];
  className?: string;
  icon?: string;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const wrapper = useRef<HTMLSpanElement>(null);
  const [focusOn, setFocusOn] = useState<"first" | "last">("first");
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const entries = menuItems(menu.current);
    // A menu opened near the foot of the scrolling list is scrolled into view, not cut off.
    menu.current?.scrollIntoView?.({ block: "nearest" });
    (focusOn === "last" ? entries.at(-1) : entries[0])?.focus({ preventScroll: true });
    const onPointerDown = (event: PointerEvent) => {
      if (!wrapper.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open, focusOn]);

  function openAt(where: "first" | "last") {
    setFocusOn(where);
    setOpen(true);
  }

  function close(returnFocus: boolean) {
    setOpen(false);
    if (returnFocus) button.current?.focus();
  }

  function onButtonKeyDown(event: KeyboardEvent) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      openAt(event.key === "ArrowUp" ? "last" : "first");
    }
  }

  function onMenuKeyDown(event: KeyboardEvent) {
    const entries = menuItems(menu.current);
    const index = entries.indexOf(document.activeElement as HTMLElement);
    const moveTo = (next: number) => entries[(next + entries.length) % entries.length]?.focus();
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      moveTo(index + 1);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      moveTo(index - 1);
    } else if (event.key === "Home") {
      event.preventDefault();
      moveTo(0);
    } else if (event.key === "End") {
      event.preventDefault();
      moveTo(entries.length - 1);
    } else if (event.key === "Tab") {
      close(false);
    }
  }

  return (
    <span ref={wrapper} className={`menu-button ${className}`.trim()} data-own-escape={open ? "" : undefined}>
      <button
        ref={button}
        type="button"
        className="icon-button menu-trigger"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => (open ? close(false) : openAt("first"))}
        onKeyDown={onButtonKeyDown}
      >
        <span aria-hidden="true">{icon}</span>
      </button>
      {open ? (
        <ul ref={menu} id={menuId} role="menu" aria-label={label} className="menu" onKeyDown={onMenuKeyDown}>
          {items.map((item) => (
            <li key={item.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                className={item.danger ? "menu-item danger" : "menu-item"}
                onClick={() => {
                  close(true);
                  item.onSelect();
                }}
              >
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </span>
  );
}

function menuItems(menu: HTMLElement | null): HTMLElement[] {
  return menu ? [...menu.querySelectorAll<HTMLElement>('[role="menuitem"]')] : [];
}
