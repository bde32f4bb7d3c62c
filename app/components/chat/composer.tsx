import { useEffect, useLayoutEffect, useRef, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import { messageTooLongText } from "~/chat/chat-limits";
import { useAssistantData } from "./assistant-data";
import { useHydrated } from "./use-hydrated";

// useLayoutEffect warns during the server render; nothing needs measuring there.
const useBrowserLayoutEffect = typeof document === "undefined" ? useEffect : useLayoutEffect;

/** Tallest the composer grows before it scrolls. */
const MAX_HEIGHT_PX = 240;

/** The message box's id: the skip link and the shortcuts lead here. */
export const MESSAGE_BOX_ID = "message-box";

/** Puts the cursor in the message box (there is one per page). */
export function focusComposer() {
  document.getElementById(MESSAGE_BOX_ID)?.focus();
}

/**
 * The message box: Enter sends, Shift+Enter starts a new line (and Enter
 * while an input method is composing does neither); it grows with its text.
 * While a reply streams, Send becomes Stop.
 */
export function Composer({
  value,
  onChange,
  onSend,
  onStop,
  busy,
  blockedReason,
  footer,
  onEscape,
}: {
  value: string;
  onChange: (text: string) => void;
  onSend: (text: string) => void;
  onStop: () => void;
  busy: boolean;
  /** Why sending is not possible right now (e.g. the quota), if it isn't. */
  blockedReason: string | null;
  footer: ReactNode;
  /** Escape in the box (the chat uses it to stop a reply). */
  onEscape?: () => void;
}) {
  const box = useRef<HTMLTextAreaElement>(null);
  const hydrated = useHydrated();

  // Text typed before the page came alive is in the box but not yet in state.
  useEffect(() => {
    const typed = box.current?.value;
    if (typed && typed !== value) onChange(typed);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at hydration
  }, []);

  useBrowserLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    element.style.height = "auto";
    element.style.height = `${Math.min(element.scrollHeight, MAX_HEIGHT_PX)}px`;
  }, [value]);

  // The user's own cap (MESSAGE_MAX_CHARS for their role), from the /nuvara layout's loader.
  const { messageMaxChars } = useAssistantData();
  const tooLong = value.length > messageMaxChars;
  // Before hydration a click would submit the form natively (a page reload): Send waits.
  const canSend = hydrated && !busy && !blockedReason && value.trim() !== "" && !tooLong;

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (canSend) onSend(value);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === "Escape" && !event.shiftKey && onEscape) {
      onEscape();
    }
  };

  return (
    <form className="composer" onSubmit={submit}>
      <div className="composer-row">
        <textarea
          ref={box}
          id={MESSAGE_BOX_ID}
          aria-label="Message"
          placeholder="Message Nuvara²"
          rows={1}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          onKeyDown={onKeyDown}
          aria-describedby="composer-hint"
          aria-invalid={tooLong || undefined}
        />
        {busy ? (
          <button type="button" className="button" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" className="button primary" disabled={!canSend}>
            Send
          </button>
        )}
      </div>
      <div id="composer-hint" className="composer-hint">
        {tooLong ? (
          <span className="form-error">{messageTooLongText(value.length, messageMaxChars)}</span>
        ) : null}
        {footer}
      </div>
    </form>
  );
}
