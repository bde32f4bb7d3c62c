import { lazy, Suspense, useState } from "react";

// The dialog is fetched when first opened: the assistant's first load stays within its budget (ADR 051).
const ShareDialog = lazy(() => import("./share-dialog").then((module) => ({ default: module.ShareDialog })));

/** "Share" in the conversation header: makes a public read-only link, shows it with Copy, or revokes it. */
export function ShareButton({ conversationId }: { conversationId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button" onClick={() => setOpen(true)}>
        Share
      </button>
      {open ? (
        <Suspense fallback={null}>
          <ShareDialog conversationId={conversationId} onClose={() => setOpen(false)} />
        </Suspense>
      ) : null}
    </>
  );
}
