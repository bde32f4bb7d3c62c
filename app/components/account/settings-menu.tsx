import { useFetcher } from "@remix-run/react";
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

const THEMES = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
] as const;

/** An entry of the menu below the theme: custom instructions, keyboard shortcuts (and later, memory). */
export interface SettingsEntry {
  label: string;
  onSelect: () => void;
}

/**
 * The one place for the account's settings: a menu button (the WAI-ARIA menu
 * button pattern) holding the theme and the assistant's settings. Arrow keys,
 * Home and End move between items; Escape or Tab closes it and the focus goes
 * back to the button. The theme is stored by the dashboard's action, as its
 * own switch does; the page's colours follow when the root data is read again.
 */
export function SettingsMenu({ theme, entries = [] }: { theme: string; entries?: SettingsEntry[] }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const fetcher = useFetcher<{ ok?: boolean; fieldErrors?: { theme?: string } }>();
  // The choice shows at once, not when the save comes back.
  const [chosen, setChosen] = useState(theme);
  useEffect(() => setChosen(theme), [theme]);
  const error = fetcher.data?.fieldErrors?.theme;

  useEffect(() => {
    if (open) items(menu.current)[0]?.focus();
  }, [open]);

  // A press outside closes it (the focus stays where the press put it).
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open]);

  function close() {
    setOpen(false);
    button.current?.focus();
  }

  function chooseTheme(value: string) {
    setChosen(value);
    fetcher.submit(
      { intent: "theme", theme: value },
      { method: "post", action: "/dashboard", preventScrollReset: true },
    );
  }

  function onMenuKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const list = items(menu.current);
    const at = list.indexOf(document.activeElement as HTMLElement);
    const move = (index: number) => list[(index + list.length) % list.length]?.focus();
    if (event.key === "ArrowDown") move(at + 1);
    else if (event.key === "ArrowUp") move(at - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(list.length - 1);
    else if (event.key === "Escape") close();
    else if (event.key === "Tab") setOpen(false);
    else return;
    if (event.key !== "Tab") event.preventDefault();
  }

  return (
    <div className="settings-menu">
      <button
        ref={button}
        type="button"
        className="link-button settings-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((was) => !was)}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            setOpen(true);
          }
        }}
      >
        Settings
      </button>
      {open ? (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-label="Settings"
          className="settings-popup"
          onKeyDown={onMenuKeyDown}
        >
          <div role="group" aria-label="Theme">
            <p className="settings-group-label" aria-hidden="true">
              Theme
            </p>
            {THEMES.map((option) => (
              <MenuItem
                key={option.value}
                role="menuitemradio"
                checked={chosen === option.value}
                onSelect={() => {
                  chooseTheme(option.value);
                  close();
                }}
              >
                {option.label}
              </MenuItem>
            ))}
          </div>
          {entries.length > 0 ? <div role="separator" className="settings-separator" /> : null}
          {entries.map((entry) => (
            <MenuItem
              key={entry.label}
              role="menuitem"
              onSelect={() => {
                // The focus is back on the button first: a dialog opened now gives it back there when it closes.
                close();
                entry.onSelect();
              }}
            >
              {entry.label}
            </MenuItem>
          ))}
        </div>
      ) : null}
      <div aria-live="polite" className="settings-error">
        {error ? <p className="form-error">{error}</p> : null}
      </div>
    </div>
  );
}

function MenuItem({
  role,
  checked,
  onSelect,
  children,
}: {
  role: "menuitem" | "menuitemradio";
  checked?: boolean;
  onSelect: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      role={role}
      aria-checked={role === "menuitemradio" ? checked : undefined}
      tabIndex={-1}
      className="settings-item"
      onClick={onSelect}
    >
      <span className="settings-check" aria-hidden="true">
        {checked ? "✓" : ""}
      </span>
      {children}
    </button>
  );
}

function items(menu: HTMLElement | null): HTMLElement[] {
  return menu ? [...menu.querySelectorAll<HTMLElement>('[role^="menuitem"]')] : [];
}
