import { Form, Link, useNavigation } from "@remix-run/react";
import {
  PROMPT_TOOL_LIMITS,
  promptFieldName as fieldName,
  type PromptToolFormValues,
} from "~/data/prompt-tools/form-fields";

export const EMPTY_PROMPT_TOOL: PromptToolFormValues = {
  name: "",
  description: "",
  category: "",
  systemPrompt: "",
  fields: [{ label: "Text", kind: "text", required: true }],
};

/**
 * Create or edit a prompt tool (admins). The server validates everything and
 * answers field errors with the values as typed, so nothing is lost.
 */
export function PromptToolForm({
  values,
  errors = {},
  categories,
  submitLabel,
}: {
  values: PromptToolFormValues;
  errors?: Record<string, string>;
  categories: string[];
  submitLabel: string;
}) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const rows = Array.from(
    { length: PROMPT_TOOL_LIMITS.fields },
    (_, index) => values.fields[index] ?? { label: "", kind: "text", required: false },
  );
  const described = (name: string, extra?: string) =>
    [errors[name] ? `${name}-error` : null, extra].filter(Boolean).join(" ") || undefined;
  const error = (name: string) =>
    errors[name] ? (
      <p id={`${name}-error`} className="form-error">
        {errors[name]}
      </p>
    ) : null;
  const count = Object.keys(errors).length;

  return (
    <Form method="post" className="tool-form" noValidate>
      {count > 0 ? (
        <p className="form-error" role="alert">
          {count === 1 ? "One thing needs fixing" : `${count} things need fixing`} before the tool can be saved.
        </p>
      ) : null}
      <label htmlFor="name">Name</label>
      <input
        id="name"
        name="name"
        defaultValue={values.name}
        maxLength={PROMPT_TOOL_LIMITS.name}
        required
        aria-invalid={errors.name ? true : undefined}
        aria-describedby={described("name")}
      />
      {error("name")}

      <label htmlFor="category">Category</label>
      <input
        id="category"
        name="category"
        list="tool-categories"
        defaultValue={values.category}
        maxLength={PROMPT_TOOL_LIMITS.category}
        required
        aria-invalid={errors.category ? true : undefined}
        aria-describedby={described("category", "category-hint")}
      />
      <datalist id="tool-categories">
        {categories.map((category) => (
          <option key={category} value={category} />
        ))}
      </datalist>
      <p id="category-hint" className="fine-print">
        Pick an existing category or type a new one.
      </p>
      {error("category")}

      <label htmlFor="description">Description</label>
      <input
        id="description"
        name="description"
        defaultValue={values.description}
        maxLength={PROMPT_TOOL_LIMITS.description}
        required
        aria-invalid={errors.description ? true : undefined}
        aria-describedby={described("description", "description-hint")}
      />
      <p id="description-hint" className="fine-print">
        One sentence: what the tool does for the user.
      </p>
      {error("description")}

      <label htmlFor="systemPrompt">Instructions for the assistant</label>
      <textarea
        id="systemPrompt"
        name="systemPrompt"
        rows={7}
        defaultValue={values.systemPrompt}
        required
        aria-invalid={errors.systemPrompt ? true : undefined}
        aria-describedby={described("systemPrompt", "systemPrompt-hint")}
      />
      <p id="systemPrompt-hint" className="fine-print">
        The conversation's system prompt, at most {PROMPT_TOOL_LIMITS.systemPrompt.toLocaleString("en")} characters.
        Users can read it on the tool's page.
      </p>
      {error("systemPrompt")}

      <fieldset className="tool-form-inputs" aria-describedby={described("inputFields", "inputs-hint")}>
        <legend>Inputs</legend>
        <p id="inputs-hint" className="fine-print">
          The form users fill in; their answers, under these labels, become the first message. Leave a label empty to
          leave the row out.
        </p>
        {error("inputFields")}
        {rows.map((row, index) => {
          const label = fieldName(index, "Label");
          const kind = fieldName(index, "Kind");
          return (
            <div className="tool-form-row" key={index} role="group" aria-label={`Input ${index + 1}`}>
              <label htmlFor={label}>Input {index + 1} label</label>
              <input
                id={label}
                name={label}
                defaultValue={row.label}
                maxLength={PROMPT_TOOL_LIMITS.fieldLabel}
                aria-invalid={errors[label] ? true : undefined}
                aria-describedby={described(label)}
              />
              <label htmlFor={kind}>Input {index + 1} kind</label>
              <select
                id={kind}
                name={kind}
                defaultValue={row.kind}
                aria-invalid={errors[kind] ? true : undefined}
                aria-describedby={described(kind)}
              >
                <option value="text">Several lines</option>
                <option value="line">One line</option>
              </select>
              <label className="checkbox">
                <input type="checkbox" name={fieldName(index, "Required")} defaultChecked={row.required} /> Input{" "}
                {index + 1} required
              </label>
              {error(label)}
              {error(kind)}
            </div>
          );
        })}
      </fieldset>

      <p className="actions">
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
        <Link to="/tools" className="button">
          Cancel
        </Link>
      </p>
    </Form>
  );
}
