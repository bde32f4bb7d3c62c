import type { ShownError } from "~/chat/client-errors";

/** A failed send, in plain words, with the way on: sign in again, the plans for a limit Retry can't get past, or Retry. */
export function ChatErrorNotice({
  error,
  chatId,
  upgradeUrl,
  onRetry,
}: {
  error: ShownError | null;
  chatId: string;
  upgradeUrl: string | null | undefined;
  onRetry: () => void;
}) {
  if (!error) return null;
  return (
    <div className="chat-error" role="alert">
      <p>{error.message}</p>
      {error.signedOut ? (
        <a className="button" href={`/login?redirectTo=${encodeURIComponent(`/nuvara/${chatId}`)}`}>
          Sign in again
        </a>
      ) : error.quotaExhausted ? (
        // A limit Retry can't get past: the way to more, when plans are on offer.
        upgradeUrl ? (
          <a className="button" href={upgradeUrl}>
            See plans
          </a>
        ) : null
      ) : (
        <button type="button" className="button primary" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}
