import { Form, useNavigation } from "@remix-run/react";
import { DISPLAY_NAME_MAX } from "~/data/display-name";

export interface DisplayNameResult {
  ok?: boolean;
  notice?: string;
  fieldErrors?: { displayName?: string };
  value?: string;
  error?: string;
}

/** Changes the name on the identity account (posted to the dashboard's action). */
export function DisplayNameForm({ current, result }: { current: string | null; result?: DisplayNameResult }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "display-name";
  const error = result?.fieldErrors?.displayName ?? result?.error;
  return (
    <Form method="post" className="inline-form" preventScrollReset noValidate>
      <input type="hidden" name="intent" value="display-name" />
      <label htmlFor="displayName">Display name</label>
      <div className="inline-form-row">
        <input
          id="displayName"
          name="displayName"
          autoComplete="name"
          defaultValue={result?.value ?? current ?? ""}
          maxLength={DISPLAY_NAME_MAX}
          required
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "displayName-error" : undefined}
        />
        <button type="submit" className="button" disabled={busy}>
          {busy ? "Saving…" : "Save name"}
        </button>
      </div>
      <div aria-live="polite">
        {error ? (
          <p id="displayName-error" className="form-error">
            {error}
          </p>
        ) : null}
        {result?.ok ? (
          <p className="form-notice" role="status">
            {result.notice}
          </p>
        ) : null}
      </div>
    </Form>
  );
}
