import { useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";

const CHOICES = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
] as const;

/** Light, dark or the system's colours, remembered for the account (posted to the dashboard's action). */
export function ThemeSwitch({ stored }: { stored: string }) {
  const fetcher = useFetcher<{ ok?: boolean; theme?: string; fieldErrors?: { theme?: string } }>();
  // The choice shows at once (set in the same event, so the radio never flips back while saving);
  // the page's colours follow when the root data is read again after saving.
  const [chosen, setChosen] = useState<string>(stored);
  useEffect(() => setChosen(stored), [stored]);
  const error = fetcher.data?.fieldErrors?.theme;
  return (
    <fetcher.Form method="post" action="/dashboard" className="theme-switch" preventScrollReset>
      <input type="hidden" name="intent" value="theme" />
      <fieldset aria-describedby={error ? "theme-error" : undefined}>
        <legend>Theme</legend>
        <div className="segmented">
          {CHOICES.map((choice) => (
            <label key={choice.value}>
              <input
                type="radio"
                name="theme"
                value={choice.value}
                checked={chosen === choice.value}
                onChange={(event) => {
                  setChosen(choice.value);
                  fetcher.submit(event.currentTarget.form);
                }}
              />
              <span>{choice.label}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {/* Without JavaScript a change is saved with this button; with it, on change. Only a page
          without scripts has it: one that took it away once live would move everything below it
          up under the pointer of someone about to click there. */}
      <noscript>
        <button type="submit" className="button">
          Save theme
        </button>
      </noscript>
      <div aria-live="polite">
        {error ? (
          <p id="theme-error" className="form-error">
            {error}
          </p>
        ) : null}
      </div>
    </fetcher.Form>
  );
}
