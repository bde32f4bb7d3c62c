import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { describe, expect, it } from "vitest";
import { mathPlugins } from "~/components/chat/markdown-math";
import { blockStarts, splitBlocks } from "~/components/chat/markdown-blocks";
import { normalizeMathDelimiters } from "~/components/chat/math-text";
import { markdownReply } from "../../support/markdown-reply";

/**
 * A streaming reply is rendered block by block (ADR 082): its blocks must
 * render exactly as the whole reply does, at every point of its writing, or a
 * finished reply would look different from the same reply stored.
 */

const html = (text: string) =>
  renderToStaticMarkup(
    createElement(ReactMarkdown, {
      children: text,
      remarkPlugins: [remarkGfm, ...(mathPlugins.remarkPlugins ?? [])],
      rehypePlugins: mathPlugins.rehypePlugins,
    }),
  ).replace(/>\s+</g, "><");

function expectSameApart(text: string) {
  const blocks = splitBlocks(text);
  expect(blocks.join("")).toBe(text);
  expect(blocks.map(html).join(""), JSON.stringify(text)).toBe(html(text));
}

const TRICKY: Record<string, string> = {
  "a loose list across blank lines": "Intro\n\n- one\n\n- two\n\n  more of two\n\n- three\n\nAfter.",
  "ordered lists with text between": "1. a\n\n2. b\n\nText\n\n3. c\n4. d",
  "a list right after a paragraph": "Para\n- a\n- b\n\nNext",
  "code with blank lines": "```py\ndef f():\n\n    return 1\n\n\nprint(f())\n```\n\nAfter",
  "a tilde fence and a longer closing fence": "~~~\na\n\nb\n~~~~\n\nc",
  "a fence in a list item": "- item\n\n  ```\n  x\n\n  y\n  ```\n\n- next\n\nend",
  "an unclosed fence": "Before\n\n```js\nlet a = 1;\n\nlet b = 2;",
  "indented code": "Para\n\n    code\n\n    more code\n\nAfter",
  "block quotes": "> one\n\n> two\n\nplain",
  "a link definition used earlier": "See [the docs][d].\n\nMore text.\n\n[d]: https://example.org",
  footnotes: "A claim.[^1]\n\nMore.\n\n[^1]: The source.",
  "an HTML block with blank lines": "<pre>\na\n\nb\n</pre>\n\nafter\n\n<!--\n\nx\n-->\n\nend",
  "display math with a blank line": "Text\n\n$$\na\n\nb\n$$\n\nAfter",
  "inline double dollars at a line's start": "$$x$$ and y\n\nnext",
  "setext headings and rules": "Title\n=====\n\ntext\n\n---\n\nSub\n---",
  "a table": "| a | b |\n|---|---|\n| 1 | 2 |\n\nafter",
  "a nested list": "- a\n  - b\n\n    c\n\n- d\n\ne",
  "Windows line endings": "a\r\n\r\n- b\r\n\r\nc\r\n",
};

describe("blocks render as the whole reply does", () => {
  it.each(Object.entries(TRICKY))("%s", (_, text) => expectSameApart(text));

  it("a long reply with headings, lists, a table, code and math, at every stage of its writing", () => {
    const text = normalizeMathDelimiters(markdownReply(250));
    for (let end = 1; end <= text.length; end += 41) expectSameApart(text.slice(0, end));
    expectSameApart(text);
  });
});

describe("where blocks start", () => {
  it("cuts a long reply into small blocks", () => {
    const blocks = splitBlocks(normalizeMathDelimiters(markdownReply(1000)));
    expect(blocks.length).toBeGreaterThan(25);
    expect(Math.max(...blocks.map((block) => block.length))).toBeLessThan(600);
  });

  it("keeps a reply that defines links whole", () => {
    expect(blockStarts("a\n\nb\n\n[x]: https://example.org")).toEqual([0]);
  });

  it("a block's start stays put as the reply grows past it", () => {
    const text = normalizeMathDelimiters(markdownReply(250));
    const final = new Set(blockStarts(text));
    const earlier = blockStarts(text.slice(0, Math.floor(text.length / 2)));
    // All but the last start of a prefix are starts of the whole.
    for (const start of earlier.slice(0, -1)) expect(final.has(start)).toBe(true);
  });
});
