import { useEffect, useRef, type ClipboardEvent, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import { PendingChips } from "./attachment-chips";
import type { PendingFile } from "./attachment-uploads";
import { messageTooLongText } from "~/settings/chat-limits";
import { useAssistantData } from "./assistant-data";
import { useHydrated } from "./use-hydrated";
import { useBrowserLayoutEffect } from "./use-browser-layout-effect";

/** Tallest the composer grows before it scrolls. */
const MAX_HEIGHT_PX = 240;

/** The message box's id: the skip link and the shortcuts lead here. */
export const MESSAGE_BOX_ID = "message-box";

/** Puts the cursor in the message box (there is one per page). */
export function focusComposer() {
  const box = document.getElementById(MESSAGE_BOX_ID);
  if (!(box instanceof HTMLTextAreaElement) || document.activeElement === box) return;
  box.focus();
  // A box that has just appeared with a draft in it (another chat opened, or
  // this one reaching its own address) has its caret at the start: typing
  // goes on from the end.
  if (box.selectionStart === 0 && box.selectionEnd === 0) box.setSelectionRange(box.value.length, box.value.length);
}

/** What the file picker offers (the server reads the type from the content, whatever the name says). */
const ACCEPTED =
  "image/png,image/jpeg,image/webp,image/gif,application/pdf,.pdf,.docx,text/*,.txt,.md,.markdown,.csv,.json,.xml,.yaml,.yml,.toml,.ts,.tsx,.js,.jsx,.py,.go,.rs,.java,.c,.h,.cpp,.cs,.rb,.php,.sh,.sql,.html,.css";

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
  files = [],
  onAttach,
  onRemoveFile,
  fileProblem,
  tools,
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
  /** Files attached to the next message (app/components/chat/attachment-uploads.ts). */
  files?: readonly PendingFile[];
  onAttach?: (files: File[]) => void;
  onRemoveFile?: (key: string) => void;
  /** Why the attached files can't go with the message (e.g. an image for a model that can't see). */
  fileProblem?: string | null;
  /** The tools menu (app/components/chat/tool-menu.tsx), under the box beside the hint. */
  tools?: ReactNode;
}) {
  const picker = useRef<HTMLInputElement>(null);
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
  const uploading = files.some((file) => file.status === "uploading");
  const canSend = hydrated && !busy && !blockedReason && value.trim() !== "" && !tooLong && !uploading && !fileProblem;

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

  // A pasted screenshot or file is attached; pasted text goes in the box as usual.
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = Array.from(event.clipboardData.files);
    if (pasted.length === 0 || !onAttach) return;
    event.preventDefault();
    onAttach(pasted);
  };

  return (
    <form className="composer" onSubmit={submit}>
      {onRemoveFile ? <PendingChips files={files} onRemove={onRemoveFile} /> : null}
      <div className="composer-row">
        {onAttach ? (
          <>
            <button
              type="button"
              className="button attach-button"
              aria-label="Attach files"
              title="Attach files (or drop them here, or paste)"
              disabled={!hydrated}
              onClick={() => picker.current?.click()}
            >
              <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
                <path
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="1.8"
                  strokeLinecap="round"
                  d="M20 11.5l-8.1 8.1a5 5 0 01-7.1-7.1l8.5-8.5a3.3 3.3 0 014.7 4.7l-8.5 8.5a1.7 1.7 0 01-2.4-2.4l7.8-7.8"
                />
              </svg>
            </button>
            <input
              ref={picker}
              type="file"
              multiple
              hidden
              accept={ACCEPTED}
              data-testid="attach-input"
              onChange={(event) => {
                const chosen = Array.from(event.target.files ?? []);
                // Cleared, so that choosing the same file again is a change too.
                event.target.value = "";
                if (chosen.length > 0) onAttach(chosen);
                focusComposer();
              }}
            />
          </>
        ) : null}
        <textarea
          ref={box}
          id={MESSAGE_BOX_ID}
          aria-label="Message"
          placeholder="Message Nuvara²"
          rows={1}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
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
      <div className="composer-bar">
        {tools}
        <div id="composer-hint" className="composer-hint">
          {tooLong ? <span className="form-error">{messageTooLongText(value.length, messageMaxChars)}</span> : null}
          {fileProblem ? <span className="form-error">{fileProblem}</span> : null}
          {footer}
        </div>
      </div>
    </form>
  );
}
