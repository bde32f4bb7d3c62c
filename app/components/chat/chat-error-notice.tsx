import type { ShownError } from "~/chat/client-errors";

/**
 * A failed send or reply, in plain words, with the way on: sign in again, the plans for a limit Retry can't get
 * past, or Retry (and Continue, for a reply cut off part way). One notice, in one place, for every failure.
 */
export function ChatErrorNotice({
  error,
  chatId,
  upgradeUrl,
  onRetry,
  onContinue,
}: {
  error: ShownError | null;
  chatId: string;
  upgradeUrl: string | null | undefined;
  onRetry: () => void;
  onContinue?: () => void;
}) {
  if (!error) return null;
  return (
    <div className="chat-error" role="alert">
      <p>{error.message}</p>
      {error.signedOut ? (
        <a className="button" href={`/login?redirectTo=${encodeURIComponent(`/nuvara/${chatId}`)}`}>
          Log in again
        </a>
      ) : error.quotaExhausted ? (
        // A limit Retry can't get past: the way to more, when plans are on offer.
        upgradeUrl ? (
          <a className="button" href={upgradeUrl}>
            See plans
          </a>
        ) : null
      ) : (
        <div className="chat-error-actions">
          <button type="button" className="button primary" onClick={onRetry}>
            Retry
          </button>
          {onContinue ? (
            <button type="button" className="button" onClick={onContinue}>
              Continue
            </button>
          ) : null}
        </div>
      )}
    </div>
  );
}
