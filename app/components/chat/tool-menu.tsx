import { Link } from "@remix-run/react";
import { useEffect, useId, useRef, useState, type FocusEvent, type KeyboardEvent } from "react";
import type { ChatToolGroup } from "~/conversation/chat-tools";

/**
 * The composer's tools menu: every tool this user may use now (the built-in
 * functions they have on, the servers' tools their role allows and they have
 * not switched off), each with a checkbox that takes it out of this chat only.
 * A disclosure: the button opens a small non-modal dialog on its first
 * checkbox; ↑ ↓ Home End (or Tab) move through it, Space checks, Escape
 * closes it and gives the focus back to the button, as do a click or the
 * focus going elsewhere. The server enforces the choice (app/chat/chat-tools.server.ts).
 */
export function ToolMenu({
  groups,
  off,
  onChange,
  disabled,
}: {
  groups: readonly ChatToolGroup[];
  off: ReadonlySet<string>;
  onChange: (id: string, on: boolean) => void;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const wrapper = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const titleId = useId();
  const total = groups.reduce((sum, group) => sum + group.tools.length, 0);
  const on = groups.reduce((sum, group) => sum + group.tools.filter((tool) => !off.has(tool.id)).length, 0);

  useEffect(() => {
    if (!open) return;
    stops(panel.current)[0]?.focus();
    const onPointerDown = (event: PointerEvent) => {
      if (!wrapper.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open]);

  function close(returnFocus: boolean) {
    setOpen(false);
    if (returnFocus) button.current?.focus();
  }

  function onPanelKeyDown(event: KeyboardEvent) {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close(true);
      return;
    }
    const entries = stops(panel.current);
    const index = entries.indexOf(document.activeElement as HTMLElement);
    const moves: Record<string, number> = {
      ArrowDown: index + 1,
      ArrowUp: index - 1,
      Home: 0,
      End: entries.length - 1,
    };
    if (!(event.key in moves) || entries.length === 0) return;
    event.preventDefault();
    entries[(moves[event.key] + entries.length) % entries.length].focus();
  }

  // Tab past the last entry (or a click elsewhere) leaves the menu: it closes.
  function onBlur(event: FocusEvent) {
    if (open && !wrapper.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
  }

  return (
    <div ref={wrapper} className="tool-menu" data-own-escape={open ? "" : undefined} onBlur={onBlur}>
      <button
        ref={button}
        type="button"
        className="button tool-menu-button"
        // The name says what the count means, and holds the text shown (WCAG 2.5.3).
        aria-label={`Tools ${on} of ${total} on`}
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        disabled={disabled}
        onClick={() => (open ? close(false) : setOpen(true))}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            setOpen(true);
          }
        }}
      >
        <ToolsIcon />
        <span>Tools</span> <span className="tool-count">{on}</span>
      </button>
      {open ? (
        <div
          ref={panel}
          id={panelId}
          role="dialog"
          aria-labelledby={titleId}
          className="tool-menu-panel"
          onKeyDown={onPanelKeyDown}
        >
          <p id={titleId} className="tool-menu-title">
            Tools for this chat
          </p>
          {groups.length === 0 ? <p className="tool-menu-empty">No tools are available to you.</p> : null}
          {groups.map((group) => (
            <fieldset key={group.id} className="tool-menu-group">
              <legend>{group.name}</legend>
              {group.tools.map((tool) => (
                <label key={tool.id} className="tool-menu-item">
                  <input
                    type="checkbox"
                    checked={!off.has(tool.id)}
                    onChange={(event) => onChange(tool.id, event.target.checked)}
                  />
                  <span>{tool.title}</span>
                </label>
              ))}
            </fieldset>
          ))}
          <Link to="/tools/servers" className="tool-menu-manage">
            Manage tools
          </Link>
        </div>
      ) : null}
    </div>
  );
}

/** What the arrows move between: the checkboxes and the link. */
function stops(panel: HTMLElement | null): HTMLElement[] {
  return panel ? [...panel.querySelectorAll<HTMLElement>("input, a[href]")] : [];
}

function ToolsIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" width="18" height="18">
      <path
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        d="M4 7h10M18 7h2M4 17h2M10 17h10M16 4.5v5M8 14.5v5"
      />
    </svg>
  );
}
