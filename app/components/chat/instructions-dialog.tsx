import { lazy, Suspense, useState } from "react";
import { useOpenedOnce } from "./opened-once";

// The form is fetched when first opened: not part of the page's first load (ADR 051).
const InstructionsForm = lazy(() =>
  import("./instructions-form").then((module) => ({
    default: module.InstructionsForm,
  })),
);

/** Custom instructions: applied to every new chat, edited here. */
export function CustomInstructions({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const loaded = useOpenedOnce(open);
  return (
    <>
      <button type="button" className="link-button" onClick={() => setOpen(true)}>
        Custom instructions: {text ? "on" : "off"}
      </button>
      {loaded ? (
        <Suspense fallback={null}>
          <InstructionsForm text={text} open={open} onClose={() => setOpen(false)} />
        </Suspense>
      ) : null}
    </>
  );
}
