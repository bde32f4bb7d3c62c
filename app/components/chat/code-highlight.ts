import { useEffect, useMemo, useSyncExternalStore, type ReactNode } from "react";

/**
 * Highlighting for a code block, loaded on demand (ADR 051): the highlighter
 * (./highlighter.ts, with highlight.js) and each language's grammar are
 * downloaded only when a reply shows a block that names that language, so a
 * page without code never loads them.
 *
 * The server renders code unhighlighted, and so does hydration (the page
 * must match the server's HTML); once the grammar is there the block
 * re-renders with the same text in coloured spans: only colours change.
 */

type Highlighter = typeof import("./highlighter");

/** Names that mean "no highlighting": plain text, and the names highlight.js uses to switch it off. */
const PLAIN = new Set(["text", "txt", "plain", "plaintext", "no-highlight", "nohighlight"]);

let highlighter: Highlighter | null = null;
let highlighterLoading: Promise<Highlighter> | null = null;
const listeners = new Set<() => void>();

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

function importHighlighter(): Promise<Highlighter> {
  if (!highlighterLoading) {
    highlighterLoading = import("./highlighter").then((module) => (highlighter = module));
    // A failed download may be retried by a later block.
    highlighterLoading.catch(() => (highlighterLoading = null));
  }
  return highlighterLoading;
}

async function loadLanguage(language: string) {
  if (await (await importHighlighter()).load(language)) for (const listener of listeners) listener();
}

/**
 * The code as highlighted spans once its language's grammar is loaded;
 * null before that, on the server, during hydration, for a block without a
 * known language, or when loading fails (the block stays readable as text).
 */
export function useHighlightedCode(language: string | null, code: string): ReactNode[] | null {
  const wanted = language !== null && !PLAIN.has(language.toLowerCase()) ? language : null;
  const ready = useSyncExternalStore(
    subscribe,
    () => wanted !== null && highlighter !== null && highlighter.isLoaded(wanted),
    () => false,
  );
  useEffect(() => {
    if (wanted !== null && !ready) loadLanguage(wanted).catch(() => undefined);
  }, [wanted, ready]);
  return useMemo(
    () => (ready && wanted !== null && highlighter ? highlighter.highlight(wanted, code) : null),
    [ready, wanted, code],
  );
}
