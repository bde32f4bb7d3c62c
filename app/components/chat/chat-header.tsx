import { useNavigate } from "@remix-run/react";
import { ShareButton } from "~/components/share/share-button";
import type { ModelChoice } from "./chat-view-types";
import { SidebarToggle } from "./sidebar-toggle";

/**
 * The conversation's header: its title, the instructions in effect, the model
 * menu, Export and Share; on the new-chat page, the Temporary switch. A
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
  picker,
}: {
  chatId: string;
  isNew: boolean;
  title: string | null;
  temporary: boolean;
  temporarySwitch: boolean;
  customInstructions: string | null;
  toolInstructions: boolean;
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
        {customInstructions ? (
          <details className="instructions-badge">
            <summary>Custom instructions on</summary>
            <p>{customInstructions}</p>
          </details>
        ) : null}
        {toolInstructions ? <span className="badge">Tool instructions on</span> : null}
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
  hydrated: boolean;
  busy: boolean;
}

function ModelPicker({ models, model, onChoose, hydrated, busy }: ModelPickerProps) {
  return (
    <label className="model-picker">
      <span>Model</span>
      <select
        value={model}
        onChange={(event) => onChoose(event.target.value)}
        // Before the page is live a choice would be undone by hydration: it waits, like Send.
        disabled={!hydrated || busy || models.length === 0}
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
