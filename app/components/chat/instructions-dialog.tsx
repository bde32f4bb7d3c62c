import { lazy, Suspense } from "react";
import { useOpenedOnce } from "./opened-once";

// The form is fetched when first opened: not part of the page's first load (ADR 051).
const InstructionsForm = lazy(() =>
  import("./instructions-form").then((module) => ({
    default: module.InstructionsForm,
  })),
);

/** Custom instructions: applied to every new chat, edited in this dialog (opened from the settings menu). */
export function InstructionsDialog({ text, open, onClose }: { text: string; open: boolean; onClose: () => void }) {
  const loaded = useOpenedOnce(open);
  return loaded ? (
    <Suspense fallback={null}>
      <InstructionsForm text={text} open={open} onClose={onClose} />
    </Suspense>
  ) : null;
}
