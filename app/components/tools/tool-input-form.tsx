import { Form, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type ChangeEvent } from "react";
import type { PromptToolField } from "~/db/schema/tools";
import { toolInputName } from "~/data/prompt-tools/form-fields";

// One object, so the reset below runs on a new answer from the server only.
const NO_ERRORS: Record<string, string> = {};

/**
 * A prompt tool's own small form; its answers become the new chat's first
 * message. No maxLength: it would silently cut a long paste; the server says
 * what is too long and gives every answer back.
 */
export function ToolInputForm({
  fields,
  values,
  errors = NO_ERRORS,
}: {
  fields: PromptToolField[];
  values?: string[];
  errors?: Record<string, string>;
}) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod === "POST";
  // Fields filled in since the server's answer. A field was sent empty when its
  // error says "Fill in…", so that error goes as soon as the field has text
  // (and comes back if it is emptied); other errors stay until the next send.
  const [filled, setFilled] = useState<Record<string, boolean>>({});
  const form = useRef<HTMLFormElement>(null);
  // On each answer (and on hydration) from what the fields hold: text typed before the page
  // finished loading never reached onChange.
  useEffect(() => {
    const elements = form.current?.elements;
    const next: Record<string, boolean> = {};
    for (let index = 0; index < fields.length; index++) {
      const element = elements?.namedItem(toolInputName(index));
      if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
        next[toolInputName(index)] = element.value.trim() !== "";
      }
    }
    setFilled(next);
  }, [errors, fields.length]);
  const sentEmpty = (index: number) => (values?.[index] ?? "").trim() === "";
  return (
    <Form ref={form} method="post" className="tool-form" noValidate>
      {errors.form ? (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      ) : null}
      {fields.map((field, index) => {
        const name = toolInputName(index);
        const error = sentEmpty(index) && filled[name] ? undefined : errors[name];
        const described =
          [field.hint ? `${name}-hint` : null, error ? `${name}-error` : null].filter(Boolean).join(" ") || undefined;
        const common = {
          id: name,
          name,
          defaultValue: values?.[index] ?? "",
          required: field.required,
          "aria-invalid": error ? true : undefined,
          "aria-describedby": described,
          onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
            const hasText = event.currentTarget.value.trim() !== "";
            setFilled((current) => (current[name] === hasText ? current : { ...current, [name]: hasText }));
          },
        };
        return (
          <div key={name} className="tool-input">
            <label htmlFor={name}>
              {field.label}
              {field.required ? null : <span className="fine-print"> (optional)</span>}
            </label>
            {field.kind === "text" ? <textarea rows={8} {...common} /> : <input {...common} />}
            {field.hint ? (
              <p id={`${name}-hint`} className="fine-print">
                {field.hint}
              </p>
            ) : null}
            {error ? (
              <p id={`${name}-error`} className="form-error">
                {error}
              </p>
            ) : null}
          </div>
        );
      })}
      <p>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? "Starting…" : "Start chat"}
        </button>
      </p>
    </Form>
  );
}
