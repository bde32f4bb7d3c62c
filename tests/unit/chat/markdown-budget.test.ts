import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "~/components/chat/markdown";
import { MAX_MARKDOWN_CHARS, MAX_NESTING_DEPTH, markdownVerdict } from "~/components/chat/markdown-budget";

/**
 * ADR 050: a reply is rendered as Markdown only when one linear scan says the
 * parser will be quick on it; otherwise, and whenever rendering throws, it is
 * shown as escaped plain text. First, the two payloads that once held the server.
 */

const BRACKETS_60KB = "[".repeat(30_000) + "a" + "]".repeat(30_000);
const QUOTES_1KB = ">".repeat(1_200) + " x";

const render = (text: string) => renderToString(createElement(Markdown, null, text));

function timed<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = work();
  return { value, ms: performance.now() - start };
}

describe("the payloads that once held the server", () => {
  it("60 KB of nested brackets → plain text, rendered at once (was 4–9 s)", () => {
    const { value: html, ms } = timed(() => render(BRACKETS_60KB));
    expect(html).toContain('class="markdown markdown-plain"');
    expect(html).toContain("[[[[a]]]]");
    // Generous for a loaded test machine: the parse alone took seconds.
    expect(ms).toBeLessThan(500);
  });

  it("1 200 nested `>` → plain text instead of a stack overflow", () => {
    const html = render(QUOTES_1KB);
    expect(html).toContain('class="markdown markdown-plain"');
    expect(html).toContain("&gt;&gt;&gt;&gt; x");
    expect(html).not.toContain("<blockquote");
  });
});

describe("markdownVerdict", () => {
  it("lets ordinary replies through as Markdown", () => {
    const reply = [
      "# Plan",
      "",
      "Start at **Belém** and take the [tram 28](https://example.org/28) — it's _cheap_.",
      "",
      "1. Morning: `Jerónimos`",
      "2. Afternoon:",
      "   - coffee",
      "     - *pastel de nata*",
      "",
      "> Tip: buy a Viva Viagem card.",
      "",
      "| day | where |",
      "|-----|-------|",
      "| 1 | Belém |",
      "",
      "```python",
      "def total(prices: list[float]) -> float:",
      "    return sum(p * 1.23 for p in prices if p > 0)  # with VAT",
      "```",
    ].join("\n");
    expect(markdownVerdict(reply)).toEqual({ ok: true });
    expect(markdownVerdict(reply.repeat(20))).toEqual({ ok: true });
  });

  it("refuses what is too long, too deep or has too many markers in one block", () => {
    expect(markdownVerdict("a".repeat(MAX_MARKDOWN_CHARS + 1))).toEqual({ ok: false, reason: "size" });
    expect(markdownVerdict(">".repeat(MAX_NESTING_DEPTH + 1) + " x")).toEqual({ ok: false, reason: "depth" });
    expect(markdownVerdict("- ".repeat(MAX_NESTING_DEPTH + 1) + "x")).toEqual({ ok: false, reason: "depth" });
    const stairs = Array.from({ length: 40 }, (_, i) => "  ".repeat(i) + "- a").join("\n");
    expect(markdownVerdict(stairs)).toEqual({ ok: false, reason: "depth" });
    expect(markdownVerdict(">".repeat(MAX_NESTING_DEPTH) + " x")).toEqual({ ok: true });
    for (const run of ["]", "*a", "_a*", "~a", "[", "[a](", "`a", "<a"]) {
      expect(markdownVerdict(run.repeat(3_000)), run).toEqual({ ok: false, reason: "delimiters" });
    }
  });

  it("refuses replies with too many elements (a huge table, thousands of lines or autolinks)", () => {
    const table = "| a | b |\n|---|---|\n" + "| 1 | 2 |\n".repeat(2_000);
    expect(markdownVerdict(table)).toEqual({ ok: false, reason: "elements" });
    expect(markdownVerdict("line\n".repeat(5_000))).toEqual({ ok: false, reason: "elements" });
    expect(markdownVerdict("www.example.org ".repeat(2_000))).toEqual({ ok: false, reason: "elements" });
  });

  it("cannot be fooled into splitting one paragraph: `2.` lines, indented bullets and a fence the parser does not see", () => {
    const markers = "]".repeat(200);
    // "2." cannot interrupt a paragraph: all of this is one paragraph.
    expect(markdownVerdict(`a\n${`2. ${markers}\n`.repeat(10)}`)).toEqual({ ok: false, reason: "delimiters" });
    // Four spaces before "-" make it paragraph text, not a list item.
    expect(markdownVerdict(`a\n${`    - ${markers}\n`.repeat(10)}`)).toEqual({ ok: false, reason: "delimiters" });
    // An HTML block holds the "fence"; a backtick in a backtick fence's info string makes it no fence;
    // a fence inside a list item ends with the item; "\r" ends a line (so a fence closed with "\r\n" is closed).
    const body = `${markers}\n`.repeat(10);
    for (const trick of [
      `<pre>\n\`\`\`\n</pre>\n${body}`,
      `\`\`\` a\`b\n${body}`,
      `- \`\`\`\n${body}`,
      `\`\`\`\n\`\`\`\r\n${body}`,
    ]) {
      expect(markdownVerdict(trick), JSON.stringify(trick.slice(0, 20))).toEqual({ ok: false, reason: "delimiters" });
    }
  });

  it("is not counted against code in a fence it is sure of, split at blank lines", () => {
    const code = "```js\n" + "const x_y = foo(a[i] * b[j]);\n\n".repeat(300) + "```\n";
    expect(markdownVerdict(code)).toEqual({ ok: true });
  });

  it("scans a line of 19 000 list markers in one pass", () => {
    const { value, ms } = timed(() => markdownVerdict("- ".repeat(19_000)));
    expect(value).toEqual({ ok: false, reason: "depth" });
    expect(ms).toBeLessThan(100);
  });
});

describe("Markdown's fallback", () => {
  it("shows refused text escaped: markup in it stays text", () => {
    const html = render(`<script>alert(1)</script>\n${"]".repeat(3_000)}`);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script");
  });

  it("renders ordinary Markdown as before", () => {
    const html = render("Start at **Belém**.");
    expect(html).toContain("<strong>Belém</strong>");
    expect(html).not.toContain("markdown-plain");
  });
});
