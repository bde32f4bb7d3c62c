/** The drop target's hint while files are dragged over the chat (app/components/chat/use-file-drop.ts). */
export function DropOverlay({ shown }: { shown: boolean }) {
  return shown ? (
    <div className="drop-overlay" aria-hidden="true">
      Drop files to attach them
    </div>
  ) : null;
}

/** Above the transcript: no model for the user's plan, or the built-in demo model chosen. */
export function ModelBanner({ noModel, demo }: { noModel: boolean; demo: boolean }) {
  return noModel ? (
    <p className="banner" role="alert">
      No model is available for your plan. Please ask an administrator.
    </p>
  ) : demo ? (
    <p className="banner demo-banner">
      You are using the built-in demo model. It is not an AI: it only explains how to connect a real model.
    </p>
  ) : null;
}

/** A temporary chat says so while it is open (docs/decisions/085). */
export function TemporaryBanner() {
  return (
    <p className="banner temporary-banner">
      <strong>Temporary chat — not saved to your history.</strong> It is deleted when you leave it, and never listed,
      exported or shared.
    </p>
  );
}

/** Announces a finished reply once; the transcript itself is not live, so tokens are not read out as they come. */
export function ReplyAnnouncement({ text }: { text: string }) {
  return (
    <p className="visually-hidden" role="status" aria-live="polite" data-testid="reply-announcement">
      {text}
    </p>
  );
}
