import { useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { MAX_CUSTOM_INSTRUCTIONS_LENGTH } from "~/chat/custom-instructions";
import { Dialog } from "./dialog";

/** Custom instructions: applied to every new chat, edited here. */
export function CustomInstructions({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const fetcher = useFetcher<{ ok?: boolean; error?: string }>();

  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok) setOpen(false);
  }, [fetcher.state, fetcher.data]);

  return (
    <>
      <button type="button" className="link-button" onClick={() => setOpen(true)}>
        Custom instructions: {text ? "on" : "off"}
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Custom instructions">
        <fetcher.Form method="post" action="/nuvara" className="dialog-form">
          <input type="hidden" name="intent" value="instructions" />
          <label>
            What should the assistant know or do in every new chat?
            <textarea name="instructions" defaultValue={text} maxLength={MAX_CUSTOM_INSTRUCTIONS_LENGTH} rows={6} />
          </label>
          <p className="fine-print">They apply to chats you start from now on. Leave empty to turn them off.</p>
          {fetcher.data?.error ? (
            <p className="form-error" role="alert">
              {fetcher.data.error}
            </p>
          ) : null}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" className="button primary" disabled={fetcher.state !== "idle"}>
              Save
            </button>
          </div>
        </fetcher.Form>
      </Dialog>
    </>
  );
}
