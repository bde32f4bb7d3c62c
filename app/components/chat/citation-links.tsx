import { createContext, useContext, useId, useMemo, type ReactNode } from "react";
import type { Components } from "react-markdown";
import type { SourcePassage } from "~/conversation/attachment-types";
import { Sources } from "./attachment-chips";
import { CITATION_TAG, citedNumbers } from "./citations";

/**
 * A reply with sources: each "[n]" it cites links to source n in the
 * reply's Sources, and the Sources list only what the reply cites
 * (docs/decisions/084). The Markdown pipeline turns "[n]" into a citation
 * element (./citations.ts rehypeCitations); this file renders it.
 */

interface CitedSource {
  id: string;
  label: string;
}

const CitationContext = createContext<(n: number) => CitedSource | null>(() => null);

/** The sources a reply cites, in number order, each with its element id and accessible name. */
function citedSources(passages: readonly SourcePassage[], text: string, prefix: string): Map<number, CitedSource> {
  const numbers = citedNumbers(text)
    .filter((n) => n <= passages.length)
    .sort((a, b) => a - b);
  return new Map(
    numbers.map((n) => {
      const passage = passages[n - 1];
      return [n, { id: `${prefix}source-${n}`, label: `Source ${n}: ${passage.name}, ${passage.location}` }];
    }),
  );
}

/** A reply's text parts (children) followed by the Sources it cites. */
export function CitedReply({
  passages,
  text,
  children,
}: {
  passages: readonly SourcePassage[];
  text: string;
  children: ReactNode;
}) {
  const prefix = useId();
  const cited = useMemo(() => citedSources(passages, text, prefix), [passages, text, prefix]);
  const sourceOf = useMemo(() => (n: number) => cited.get(n) ?? null, [cited]);
  return (
    <CitationContext.Provider value={sourceOf}>
      {children}
      <Sources passages={passages} numbers={[...cited.keys()]} idOf={(n) => cited.get(n)?.id ?? ""} />
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
