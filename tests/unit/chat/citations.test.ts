import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { CitedReply } from "~/components/chat/citation-links";
import { citedNumbers, splitCitations } from "~/components/chat/citations";
import { Markdown } from "~/components/chat/markdown";
import type { SourcePassage, WebSource } from "~/conversation/attachment-types";

const passage = (name: string, location: string): SourcePassage => ({
  attachmentId: `id-${name}`,
  name,
  location,
  text: `The text of ${name}.`,
});

const PASSAGES = [
  passage("harbour-log.txt", "lines 1–20"),
  passage("harbour-log.txt", "lines 21–40"),
  passage("tides.pdf", "p. 3"),
];

const render = (text: string, passages = PASSAGES, web?: WebSource[]) =>
  renderToStaticMarkup(
    createElement(CitedReply, { sources: { passages, web }, text, children: createElement(Markdown, null, text) }),
  );

const PAGE: WebSource = {
  number: 4,
  title: "Tide tables <b>2026</b>",
  url: "https://www.tides.example/tables?port=brest",
  snippet: "High water at <script>alert(1)</script> 06:12.",
};

describe("citations in a reply", () => {
  it("finds the numbers cited, outside code, in the order first cited", () => {
    expect(citedNumbers("The code is PELICAN-42 [3], see also [1, 3] and [2024].")).toEqual([3, 1]);
    expect(citedNumbers("Use `arr[1]` or\n\n```js\nx = y[2];\n```\n\nas in [2].")).toEqual([2]);
    expect(citedNumbers("[docs](https://example.org) [0]")).toEqual([]);
  });

  it("splits a text into its citations, a lone [n] as one piece", () => {
    expect(splitCitations("no citation here")).toBeNull();
    expect(splitCitations("see [1].")).toEqual([{ text: "see " }, { cite: 1, text: "[1]" }, { text: "." }]);
    expect(splitCitations("[1, 2]")).toEqual([
      { text: "[" },
      { cite: 1, text: "1" },
      { text: ", " },
      { cite: 2, text: "2" },
      { text: "]" },
    ]);
  });

  it("links each [n] to its source in the Sources, named by the source", () => {
    const html = render("The code is PELICAN-42 [1], and the tide turns at six [3].");
    const links = [...html.matchAll(/<a class="citation" href="#([^"]+)" aria-label="([^"]+)"[^>]*>([^<]+)<\/a>/g)];
    expect(links.map((link) => [link[2], link[3]])).toEqual([
      ["Source 1: harbour-log.txt, lines 1–20", "[1]"],
      ["Source 3: tides.pdf, p. 3", "[3]"],
    ]);
    // Each link's target is that source's entry in the list, which keeps its number.
    for (const [, id] of links) expect(html).toContain(`id="${id}"`);
    expect(html).toMatch(/<li value="3" id="[^"]+source-3">/);
  });

  it("lists only the sources the reply cites, and none when it cites none", () => {
    const cited = render("Only the tides [3].");
    expect(cited).toContain('Sources <span class="sources-count">(1)</span>');
    expect(cited).toContain("tides.pdf");
    expect(cited).not.toContain("harbour-log.txt");
    const uncited = render("The picture shows a red dot.");
    expect(uncited).not.toContain("Sources");
  });

  it("leaves [n] in code, out of range, or without sources as text", () => {
    const html = render("Index with `list[1]`:\n\n```\nlist[2]\n```\n\nThere is no [9], but there is [2].");
    expect(html).toContain("<code>list[1]</code>");
    expect(html).toContain("list[2]");
    expect(html).toContain("no [9], but");
    expect(html.match(/class="citation"/g)).toHaveLength(1);
    expect(render("A plain [1].", [])).not.toContain("citation");
  });

  it("links a page found on the web, numbered after the passages, to its address in a new tab, as text only", () => {
    const html = render("Passage [1] and the tables [4].", PASSAGES, [PAGE]);
    expect(html).toMatch(
      /<a class="citation" href="#[^"]+source-4" aria-label="Source 4: Tide tables &lt;b&gt;2026&lt;\/b&gt;, www.tides.example"/,
    );
    expect(html).toMatch(/<li value="4" id="[^"]+source-4">/);
    expect(html).toContain(
      '<a class="source-name" href="https://www.tides.example/tables?port=brest" target="_blank" rel="noopener noreferrer nofollow">Tide tables &lt;b&gt;2026&lt;/b&gt;</a>',
    );
    expect(html).toContain('<span class="source-host">www.tides.example</span>');
    expect(html).toContain("High water at &lt;script&gt;alert(1)&lt;/script&gt; 06:12.");
    expect(html).not.toContain("<script>");
  });

  it("keeps a page's own number when the passages are left out (a share without files)", () => {
    const html = render("See [4].", [], [PAGE]);
    expect(html).toMatch(/<li value="4"/);
    expect(html).toContain('Sources <span class="sources-count">(1)</span>');
  });

  it("never links a source whose address is not http(s)", () => {
    const html = render("See [4].", [], [{ ...PAGE, url: "javascript:alert(1)" }]);
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("citation");
  });
});
