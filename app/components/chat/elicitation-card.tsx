import { useId, useState, type FormEvent, type ReactNode } from "react";
import { FormOutcome } from "~/components/form-outcome";
import type {
  ElicitationAction,
  ElicitationField,
  ElicitationAnswer,
  ToolElicitationView,
} from "~/conversation/tool-elicitation";

/**
 * A server asking the user for input while its tool runs (MCP elicitation,
 * docs/decisions/095): the server's words (as text) and a small form built
 * from the fields it asked for, with Send and Decline. The answer goes to the
 * app's server, which checks it and hands it to the waiting call; the card
 * changes when the reply hears the answer (in every tab that shows it).
 */
export function ElicitationCard({ request }: { request: ToolElicitationView }) {
  const id = useId();
  const [sending, setSending] = useState<ElicitationAction | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  async function answer(action: ElicitationAction, content?: ElicitationAnswer) {
    setSending(action);
    setError(null);
    try {
      const response = await fetch("/api/tool-elicitations", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ elicitationId: request.elicitationId, action, content }),
      });
      if (response.ok) return;
      const body = (await response.json().catch(() => ({}))) as {
        error?: string;
        fieldErrors?: Record<string, string>;
      };
      setFieldErrors(body.fieldErrors ?? {});
      setError(body.error ?? "Your answer could not be sent. Please try again.");
    } catch {
      setError("Your answer could not be sent: check your connection and try again.");
    }
    setSending(null);
  }

  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void answer("accept", formAnswer(request.fields, new FormData(event.currentTarget)));
  }

  if (request.status !== "pending") return <p className="approval-outcome">{outcomeText(request)}</p>;
  return (
    <section className="approval-card elicitation-card" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{request.server} asks for your input</h3>
      <p className="elicitation-message">{request.message}</p>
      <form onSubmit={send} className="elicitation-form">
        {request.fields.map((field) => (
          <FieldInput key={field.name} field={field} formId={id} error={fieldErrors[field.name]} />
        ))}
        <div className="approval-actions">
          <button type="submit" className="button primary" disabled={sending !== null}>
            Send
          </button>
          <button
            type="button"
            className="button secondary"
            disabled={sending !== null}
            onClick={() => answer("decline")}
          >
            Decline
          </button>
        </div>
      </form>
      <p className="fine-print">Your answer goes to {request.server}, not to the assistant.</p>
      <FormOutcome error={error ?? undefined}>
        {sending ? <p className="fine-print">Sending your answer…</p> : null}
      </FormOutcome>
    </section>
  );
}

function outcomeText({ server, status }: ToolElicitationView): string {
  switch (status) {
    case "accepted":
      return `You answered ${server}'s request.`;
    case "declined":
      return `You declined ${server}'s request.`;
    case "expired":
      return `${server}'s request got no answer in time.`;
    default:
      return `${server}'s request was cancelled.`;
  }
}

const INPUT_TYPES: Partial<Record<ElicitationField["kind"], string>> = {
  email: "email",
  url: "url",
  date: "date",
  "date-time": "datetime-local",
  number: "number",
  integer: "number",
};

/** One field: a labelled input of its kind, with the server's description and the app's error under it. */
function FieldInput({ field, formId, error }: { field: ElicitationField; formId: string; error?: string }) {
  const inputId = `${formId}-${field.name}`;
  const described = [field.description ? `${inputId}-about` : "", error ? `${inputId}-error` : ""]
    .filter(Boolean)
    .join(" ");
  const common = {
    id: inputId,
    name: field.name,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": described || undefined,
  };
  const notes = (
    <>
      {field.description ? (
        <p id={`${inputId}-about`} className="fine-print">
          {field.description}
        </p>
      ) : null}
      {error ? (
        <p id={`${inputId}-error`} className="form-error">
          {error}
        </p>
      ) : null}
    </>
  );
  if (field.kind === "choices") {
    return <ChoicesInput field={field} inputId={inputId} describedBy={common["aria-describedby"]} notes={notes} />;
  }
  if (field.kind === "boolean") {
    return (
      <div className="elicitation-field elicitation-check">
        <input type="checkbox" {...common} defaultChecked={field.default === true} />
        <label htmlFor={inputId}>{field.label}</label>
        {notes}
      </div>
    );
  }
  return (
    <div className="elicitation-field">
      <label htmlFor={inputId}>
        {field.label}
        {field.required ? null : <span className="fine-print"> (optional)</span>}
      </label>
      {field.kind === "choice" ? (
        <select {...common} required={field.required} defaultValue={String(field.default ?? "")}>
          {field.required && field.default !== undefined ? null : <option value="">Choose…</option>}
          {field.options?.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type={INPUT_TYPES[field.kind] ?? "text"}
          required={field.required}
          minLength={field.minLength}
          maxLength={field.maxLength}
          min={field.minimum}
          max={field.maximum}
          step={field.kind === "number" ? "any" : undefined}
          defaultValue={field.default === undefined ? undefined : String(field.default)}
        />
      )}
      {notes}
    </div>
  );
}

/** Several choices: a group of checkboxes under the field's label. */
function ChoicesInput({
  field,
  inputId,
  describedBy,
  notes,
}: {
  field: ElicitationField;
  inputId: string;
  describedBy?: string;
  notes: ReactNode;
}) {
  const chosen = new Set(Array.isArray(field.default) ? field.default : []);
  return (
    <fieldset className="elicitation-field elicitation-choices" aria-describedby={describedBy}>
      <legend>
        {field.label}
        {field.required ? null : <span className="fine-print"> (optional)</span>}
      </legend>
      {field.options?.map((option, at) => (
        <div key={option.value} className="elicitation-check">
          <input
            type="checkbox"
            id={`${inputId}-${at}`}
            name={field.name}
            value={option.value}
            defaultChecked={chosen.has(option.value)}
          />
          <label htmlFor={`${inputId}-${at}`}>{option.label}</label>
        </div>
      ))}
      {notes}
    </fieldset>
  );
}

/** The form's values as the fields' types; a date and time is sent with its offset (the input has none). */
function formAnswer(fields: readonly ElicitationField[], form: FormData): ElicitationAnswer {
  const answer: ElicitationAnswer = {};
  for (const field of fields) {
    if (field.kind === "choices") answer[field.name] = form.getAll(field.name).map(String);
    else if (field.kind === "boolean") answer[field.name] = form.has(field.name);
    else {
      const value = String(form.get(field.name) ?? "");
      if (value === "") continue;
      answer[field.name] =
        field.kind === "date-time" && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : value;
    }
  }
  return answer;
}
