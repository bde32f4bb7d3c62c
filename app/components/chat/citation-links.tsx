import { createContext, useContext, useId, useMemo, type ReactNode } from "react";
import type { Components } from "react-markdown";
import type { ReplySources } from "~/conversation/attachment-types";
import { Sources, type SourceEntry } from "./attachment-chips";
import { CITATION_TAG, citedNumbers } from "./citations";

/**
 * A reply with sources: each "[n]" it cites links to source n in the
 * reply's Sources, and the Sources list only what the reply cites
 * (docs/decisions/084). Passages of attached documents are numbered from 1,
 * pages found on the web carry their own numbers, which follow
 * (docs/decisions/088). The Markdown pipeline turns "[n]" into a citation
 * element (./citations.ts rehypeCitations); this file renders it.
 */

interface CitedSource {
  id: string;
  label: string;
}

const CitationContext = createContext<(n: number) => CitedSource | null>(() => null);

/** Every source of a reply under its number: passages 1…n, then the pages found, with an http(s) address only. */
function numberedSources(sources: ReplySources): Map<number, SourceEntry> {
  const entries = new Map<number, SourceEntry>();
  sources.passages.forEach((passage, index) => entries.set(index + 1, { n: index + 1, passage }));
  for (const web of sources.web ?? []) {
    if (Number.isInteger(web.number) && !entries.has(web.number) && hostOf(web.url))
      entries.set(web.number, { n: web.number, web });
  }
  return entries;
}

/** The host a web source's address names; undefined for anything but an http(s) address. */
export function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.hostname : undefined;
  } catch {
    return undefined;
  }
}

function labelOf(entry: SourceEntry): string {
  if ("passage" in entry) return `Source ${entry.n}: ${entry.passage.name}, ${entry.passage.location}`;
  return `Source ${entry.n}: ${entry.web.title}, ${hostOf(entry.web.url)}`;
}

/** The sources a reply cites, in number order, each with its element id and accessible name. */
function citedSources(
  entries: Map<number, SourceEntry>,
  text: string,
  prefix: string,
): Map<number, CitedSource & { entry: SourceEntry }> {
  const numbers = citedNumbers(text)
    .filter((n) => entries.has(n))
    .sort((a, b) => a - b);
  return new Map(
    numbers.map((n) => {
      const entry = entries.get(n)!;
      return [n, { id: `${prefix}source-${n}`, label: labelOf(entry), entry }];
    }),
  );
}

const NO_SOURCES: ReplySources = { passages: [] };

/** A reply's text parts (children) followed by the Sources it cites. */
export function CitedReply({
  sources = NO_SOURCES,
  text,
  children,
}: {
  sources?: ReplySources;
  text: string;
  children: ReactNode;
}) {
  const prefix = useId();
  const cited = useMemo(() => citedSources(numberedSources(sources), text, prefix), [sources, text, prefix]);
  const sourceOf = useMemo(() => (n: number) => cited.get(n) ?? null, [cited]);
  return (
    <CitationContext.Provider value={sourceOf}>
      {children}
      <Sources entries={[...cited.values()].map((source) => source.entry)} idOf={(n) => cited.get(n)?.id ?? ""} />
    </CitationContext.Provider>
  );
}

/** Opens the Sources and the passage a citation points to, so following the link shows it. */
function revealSource(id: string) {
  const target = document.getElementById(id);
  if (!target) return;
  for (let element: HTMLElement | null = target; element; element = element.parentElement) {
    if (element instanceof HTMLDetailsElement) element.open = true;
  }
  const passage = target.querySelector("details");
  if (passage) passage.open = true;
  // The link's own navigation then scrolls to it.
}

function CitationRef({ node, children }: { node?: { properties?: Record<string, unknown> }; children?: ReactNode }) {
  const sourceOf = useContext(CitationContext);
  const source = sourceOf(Number(node?.properties?.dataCite));
  if (!source) return <>{children}</>;
  return (
    <a
      className="citation"
      href={`#${source.id}`}
      aria-label={source.label}
      title={source.label}
      onClick={() => revealSource(source.id)}
    >
      {children}
    </a>
  );
}

/** For the Markdown pipeline's components: the element rehypeCitations makes. */
export const citationComponents = { [CITATION_TAG]: CitationRef } as unknown as Components;
