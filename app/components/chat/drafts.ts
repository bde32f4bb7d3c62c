import { useCallback, useEffect, useState } from "react";

/**
 * What the user typed, kept in sessionStorage (this tab only, gone when it
 * closes): the composer's draft per conversation, and a message whose reply
 * has not been confirmed as saved, so a reload after a failure gives it back.
 */
const DRAFT = "nuvara:draft:";
const UNSENT = "nuvara:unsent:";

function read(key: string): string {
  try {
    return window.sessionStorage.getItem(key) ?? "";
  } catch {
    return "";
  }
}

function write(key: string, value: string) {
  try {
    if (value) window.sessionStorage.setItem(key, value);
    else window.sessionStorage.removeItem(key);
  } catch {
    // Storage full or disabled: the draft lives only in the page then.
  }
}

/** The composer's text for one conversation (`new` for a chat not yet created). */
export function useDraft(key: string): [string, (text: string) => void] {
  const [text, setText] = useState("");
  // Read after hydration: the server renders an empty composer.
  useEffect(() => {
    const stored = read(DRAFT + key);
    if (stored) setText(stored);
  }, [key]);
  const update = useCallback(
    (next: string) => {
      setText(next);
      write(DRAFT + key, next);
    },
    [key],
  );
  return [text, update];
}

/** A new chat got its conversation id: its draft goes with it. */
export function moveDraft(from: string, to: string) {
  const text = read(DRAFT + from);
  write(DRAFT + from, "");
  if (text) write(DRAFT + to, text);
}

export const unsent = {
  remember: (key: string, text: string) => write(UNSENT + key, text),
  read: (key: string) => read(UNSENT + key),
  clear: (key: string) => write(UNSENT + key, ""),
  move(from: string, to: string) {
    const text = read(UNSENT + from);
    write(UNSENT + from, "");
    if (text) write(UNSENT + to, text);
  },
};
