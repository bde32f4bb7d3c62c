import { ShareButton } from "~/components/share/share-button";
import type { ModelChoice } from "./chat-view-types";
import { SidebarToggle } from "./sidebar-toggle";

/** The conversation's header: its title, the instructions in effect, the model menu, Export and Share. */
export function ChatHeader({
  chatId,
  isNew,
  title,
  customInstructions,
  toolInstructions,
  picker,
}: {
  chatId: string;
  isNew: boolean;
  title: string | null;
  customInstructions: string | null;
  toolInstructions: boolean;
  picker: ModelPickerProps;
}) {
  return (
    <header className="chat-header">
      <SidebarToggle />
      <h2 id="chat-title" className="chat-title">
        {title ?? "New chat"}
      </h2>
      <div className="chat-tools">
        {customInstructions ? (
          <details className="instructions-badge">
            <summary>Custom instructions on</summary>
            <p>{customInstructions}</p>
          </details>
        ) : null}
        {toolInstructions ? <span className="badge">Tool instructions on</span> : null}
        <ModelPicker {...picker} />
        {!isNew ? (
          <a className="button" href={`/api/conversations/${chatId}/markdown`} download>
            Export
          </a>
        ) : null}
        {!isNew ? <ShareButton conversationId={chatId} /> : null}
      </div>
    </header>
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
