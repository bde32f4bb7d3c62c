import { useCallback, useEffect, useRef, useState } from "react";
import { useHydrated } from "./use-hydrated";

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

/** Text kept under one key goes to another (a new chat got its conversation id). */
function move(from: string, to: string) {
  const text = read(from);
  write(from, "");
  if (text) write(to, text);
}

/**
 * The composer's text for one conversation (`new` for a chat not yet created),
 * and `moveTo(id)` for when a new chat gets its conversation id.
 */
export function useDraft(key: string): [string, (text: string) => void, (id: string) => void] {
  // The server renders an empty composer, so hydration must too; a composer
  // mounted later (e.g. the conversation's page taking over from /nuvara)
  // starts with the stored text at once, so no keystroke lands in an empty box.
  const hydrated = useHydrated();
  const [text, setText] = useState(() => (hydrated ? read(DRAFT + key) : ""));
  const storageKey = useRef(key);
  useEffect(() => {
    storageKey.current = key;
    const stored = read(DRAFT + key);
    if (stored) setText(stored);
  }, [key]);
  const update = useCallback((next: string) => {
    setText(next);
    write(DRAFT + storageKey.current, next);
  }, []);
  // The page shows the conversation's own composer only after its loader has
  // run and React has rendered it (deferred while the user types): until then
  // this composer stays, and what is typed in it is kept under the new id.
  const moveTo = useCallback((id: string) => {
    if (storageKey.current === id) return;
    move(DRAFT + storageKey.current, DRAFT + id);
    storageKey.current = id;
  }, []);
  return [text, update, moveTo];
}

export const unsent = {
  remember: (key: string, text: string) => write(UNSENT + key, text),
  read: (key: string) => read(UNSENT + key),
  clear: (key: string) => write(UNSENT + key, ""),
  move: (from: string, to: string) => move(UNSENT + from, UNSENT + to),
};
