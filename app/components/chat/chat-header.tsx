import { Link, useNavigate } from "@remix-run/react";
import { useRef } from "react";
import { ShareButton } from "~/components/share/share-button";
import type { ModelChoice } from "./chat-view-types";
import { SidebarToggle } from "./sidebar-toggle";
import { useBrowserLayoutEffect } from "./use-browser-layout-effect";

/**
 * The conversation's header: its title, the instructions in effect, the model
 * menu, Export and Share; the project it is in; on the new-chat page, the Temporary switch. A
 * temporary chat is never exported or shared (docs/decisions/085).
 */
export function ChatHeader({
  chatId,
  isNew,
  title,
  temporary,
  temporarySwitch,
  customInstructions,
  toolInstructions,
  tool,
  project,
  picker,
}: {
  chatId: string;
  isNew: boolean;
  title: string | null;
  temporary: boolean;
  temporarySwitch: boolean;
  customInstructions: string | null;
  toolInstructions: boolean;
  tool: { id: string; name: string } | null;
  project: { id: string; name: string } | null;
  picker: ModelPickerProps;
}) {
  return (
    <header className="chat-header">
      <SidebarToggle />
      <h2 id="chat-title" className="chat-title">
        {temporary ? "Temporary chat" : (title ?? "New chat")}
      </h2>
      <div className="chat-tools">
        {temporarySwitch ? <TemporarySwitch on={temporary} /> : null}
        {project ? <span className="badge project-badge">In project “{project.name}”</span> : null}
        {customInstructions ? (
          <details className="instructions-badge">
            <summary>Custom instructions on</summary>
            <p>{customInstructions}</p>
          </details>
        ) : null}
        {tool ? (
          <ToolBadge name={tool.name} />
        ) : toolInstructions ? (
          <span className="badge">Tool instructions on</span>
        ) : null}
        <ModelPicker {...picker} />
        {!isNew && !temporary ? (
          <a className="button" href={`/api/conversations/${chatId}/markdown`} download>
            Export
          </a>
        ) : null}
        {!isNew && !temporary ? <ShareButton conversationId={chatId} /> : null}
      </div>
    </header>
  );
}

/** A new chat in a prompt tool's mode says which tool, and leaves it (the message in the box stays, app/components/chat/drafts.ts). */
function ToolBadge({ name }: { name: string }) {
  return (
    <span className="badge tool-badge">
      <span className="tool-badge-name">Using the tool “{name}”</span>
      <Link
        to="/nuvara"
        className="tool-leave"
        aria-label={`Stop using the tool “${name}”`}
        title="Stop using the tool"
      >
        <span aria-hidden="true">×</span>
      </Link>
    </span>
  );
}

/**
 * Between an ordinary new chat and a temporary one. Switching leaves the chat
 * shown (a temporary one is then deleted); what is typed in the box stays.
 */
function TemporarySwitch({ on }: { on: boolean }) {
  const navigate = useNavigate();
  return (
    <button
      type="button"
      role="switch"
      aria-checked={on}
      className="temporary-switch"
      onClick={() => navigate(on ? "/nuvara" : "/nuvara?temporary=1")}
    >
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
      Temporary
    </button>
  );
}

interface ModelPickerProps {
  models: ModelChoice[];
  model: string;
  onChoose: (id: string) => void;
  busy: boolean;
}

function ModelPicker({ models, model, onChoose, busy }: ModelPickerProps) {
  const select = useRef<HTMLSelectElement>(null);
  // A model chosen in the server's page, before it came alive, is in the menu but not yet in state (no change event
  // reached React): taken over as the page hydrates, before the next render would set the menu back to the default.
  useBrowserLayoutEffect(() => {
    const chosen = select.current?.value;
    if (chosen && chosen !== model && models.some((option) => option.id === chosen)) onChoose(chosen);
    // Once, at hydration.
  }, []);
  return (
    <label className="model-picker">
      <span>Model</span>
      <select
        ref={select}
        value={model}
        onChange={(event) => onChoose(event.target.value)}
        disabled={busy || models.length === 0}
      >
        {models.map((option) => (
          <option key={option.id} value={option.id}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
