import { useFetcher } from "@remix-run/react";
import { useEffect } from "react";
import { MAX_CUSTOM_INSTRUCTIONS_LENGTH } from "~/chat/custom-instructions";
import { Dialog } from "./dialog";

/** The custom instructions' dialog (instructions-dialog.tsx loads it when first opened). */
export function InstructionsForm({ text, open, onClose }: { text: string; open: boolean; onClose: () => void }) {
  const fetcher = useFetcher<{ ok?: boolean; error?: string }>();

  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok) onClose();
    // onClose is a new function each render; the save's outcome is what matters.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fetcher.state, fetcher.data]);

  return (
    <Dialog open={open} onClose={onClose} title="Custom instructions">
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
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={fetcher.state !== "idle"}>
            Save
          </button>
        </div>
      </fetcher.Form>
    </Dialog>
  );
}
