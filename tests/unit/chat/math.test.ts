import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { mathPlugins } from "~/components/chat/markdown-math";
import { RenderedMarkdown } from "~/components/chat/markdown-render";
import { hasMath, normalizeMathDelimiters } from "~/components/chat/math-text";

/** LaTeX in replies (ADR 056): found in the forms models write, never in prices or code, rendered as MathML, inert. */

const render = (text: string) =>
  renderToStaticMarkup(createElement(RenderedMarkdown, { math: mathPlugins, children: text }));

describe("which replies have math", () => {
  it.each([
    ["inline dollars", "Energy is $E=mc^2$.", true],
    ["a one-letter variable", "Let $x$ be positive.", true],
    ["display dollars", "$$\n\\int_0^1 x\\,dx\n$$", true],
    ["brackets", "So \\[a^2+b^2=c^2\\] holds.", true],
    ["parentheses", "where \\(n > 0\\)", true],
    ["prices", "It costs $5 and $6, or $ 7 total.", false],
    ["a dollar amount with cents", "Pay $19.99 today, $5 tomorrow", false],
    ["inline code", "Run `echo $HOME$PATH` now", false],
    ["a fenced block", "```sh\necho $x$\n```", false],
    ["no dollar at all", "Plain words", false],
  ])("%s", (_, text, expected) => {
    expect(hasMath(text)).toBe(expected);
  });
});

describe("delimiters as remark-math reads them", () => {
  it("puts display math on lines of its own and inline math in $$…$$, leaving prices and code alone", () => {
    expect(normalizeMathDelimiters("So \\[a+b\\] and \\(c\\), $d$ for $5. `\\(x\\)`")).toBe(
      "So \n$$\na+b\n$$\n and $$c$$, $$d$$ for $5. `\\(x\\)`",
    );
    expect(normalizeMathDelimiters("Before\n$$ \\sum_i i $$\nafter")).toBe("Before\n$$\n\\sum_i i\n$$\nafter");
  });
});

describe("math rendered", () => {
  it("as MathML, inline and as a block, with the TeX kept as its annotation", () => {
    const html = render("Energy: $E=mc^2$\n\n\\[\\sum_{i=1}^n i\\]");
    expect(html).toMatch(
      /<p>Energy: <span class="katex"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML"><semantics><mrow><mi>E<\/mi>/,
    );
    expect(html).toContain('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">');
    expect(html).toContain('<annotation encoding="application/x-tex">\\sum_{i=1}^n i</annotation>');
  });

  it("never makes links, HTML or styles from TeX (\\href, \\url, \\htmlClass refused and shown as errors)", () => {
    const html = render(
      "$\\href{javascript:alert(1)}{click}$ $\\url{https://example.com}$ $\\htmlClass{x}{y}$ $\\includegraphics{https://example.com/a.png}$",
    );
    expect(html).not.toMatch(/<a\b|href=|<img|class="x"/);
    expect(html).toContain('mathcolor="#cc0000"');
  });

  it("shows broken TeX as its source instead of failing the reply", () => {
    const html = render("Oops: $\\frac{1}{$ and after");
    expect(html).toContain("after");
    expect(html).not.toContain("markdown-plain");
  });

  it("leaves prices and code as they were", () => {
    const html = render("It costs $5 and $6.\n\n```sh\necho $x$\n```");
    expect(html).toContain("It costs $5 and $6.");
    expect(html).toContain("echo $x$");
    expect(html).not.toContain("<math");
  });
});
