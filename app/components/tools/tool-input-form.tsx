import { Form, useNavigation } from "@remix-run/react";
import type { PromptToolField } from "~/db/schema/tools";
import { toolInputName } from "./form-fields";

/**
 * A prompt tool's own small form; its answers become the new chat's first
 * message. No maxLength: it would silently cut a long paste; the server says
 * what is too long and gives every answer back.
 */
export function ToolInputForm({
  fields,
  values,
  errors = {},
}: {
  fields: PromptToolField[];
  values?: string[];
  errors?: Record<string, string>;
}) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod === "POST";
  return (
    <Form method="post" className="tool-form" noValidate>
      {errors.form ? (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      ) : null}
      {fields.map((field, index) => {
        const name = toolInputName(index);
        const error = errors[name];
        const described = [field.hint ? `${name}-hint` : null, error ? `${name}-error` : null].filter(Boolean).join(" ") || undefined;
        const common = {
          id: name,
          name,
          defaultValue: values?.[index] ?? "",
          required: field.required,
          "aria-invalid": error ? true : undefined,
          "aria-describedby": described,
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
