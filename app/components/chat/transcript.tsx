import type { ReactNode } from "react";
import { useNonce } from "~/components/nonce";
import { focusComposer } from "./composer";
import { scrollToLatestScript, type useFollowLatest } from "./follow-latest";

/**
 * The scrolling conversation log (its content is `children`), kept at the
 * latest message by `follow` (app/components/chat/follow-latest.ts), with
 * "Jump to latest" once the user has scrolled up to read.
 */
export function Transcript({
  follow,
  busy,
  onEscape,
  children,
}: {
  follow: ReturnType<typeof useFollowLatest>;
  busy: boolean;
  /** Escape in the transcript (the chat uses it to stop a streaming reply). */
  onEscape: () => void;
  children: ReactNode;
}) {
  const nonce = useNonce();
  return (
    <div className="transcript-area">
      <div
        ref={follow.scroller}
        id="transcript"
        className="transcript"
        role="log"
        // A log is polite by default: that would read every token out; the status below announces the finished reply instead.
        aria-live="off"
        aria-label="Conversation"
        aria-busy={busy}
        // Scrollable, so reachable by keyboard (arrows and Page Up/Down read back).
        tabIndex={0}
        onKeyDown={(event) => {
          if (event.key === "Escape" && !event.shiftKey && busy) {
            event.preventDefault();
            onEscape();
          }
        }}
      >
        <div ref={follow.content} className="transcript-content">
          {children}
        </div>
      </div>
      <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: scrollToLatestScript }} />
      {follow.away ? (
        <button
          type="button"
          className="button jump-to-latest"
          onClick={() => {
            follow.jump();
            // The button goes away; the cursor goes where the reading left off — the box.
            focusComposer();
          }}
        >
          <span aria-hidden="true">↓ </span>Jump to latest
        </button>
      ) : null}
    </div>
  );
}
