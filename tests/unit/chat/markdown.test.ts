import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown, safeUrl } from "~/components/chat/markdown";

const render = (text: string) => renderToStaticMarkup(createElement(Markdown, null, text));

describe("Markdown: model output rendered safely", () => {
  it("renders GFM: emphasis, lists, task lists, tables, strikethrough", () => {
    const html = render("**bold** ~~old~~\n\n- [x] done\n- [ ] todo\n\n| a | b |\n|---|---|\n| 1 | 2 |");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<del>old</del>");
    expect(html).toMatch(/<input type="checkbox" disabled="" checked=""\/> ?done/);
    expect(html).toContain("<td>2</td>");
  });

  it("shows raw HTML as text, never as elements", () => {
    const html = render(
      'Hi <img src=x onerror="alert(1)"> there\n\n<script>alert(2)</script>\n\n<iframe src="https://evil.example"></iframe>',
    );
    expect(html).not.toMatch(/<img|<script|<iframe/);
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).toContain("&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(html).toContain("&lt;iframe");
  });

  it("keeps http(s) and mailto links, opened in a new tab without opener or referrer", () => {
    const html = render("[docs](https://example.org/a?b=1) [mail](mailto:a@example.org) https://auto.example.org");
    expect(html).toContain('<a href="https://example.org/a?b=1" target="_blank" rel="noopener noreferrer">docs</a>');
    expect(html).toContain('<a href="mailto:a@example.org" target="_blank" rel="noopener noreferrer">mail</a>');
    expect(html).toContain('href="https://auto.example.org/"');
  });

  it("turns javascript:, data:, vbscript: and relative links into plain text", () => {
    for (const target of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "data:text/html,<b>x</b>",
      "vbscript:x",
      "/admin",
      "//evil.example/x",
      " javascript:alert(1)",
    ]) {
      const html = render(`[click](${target})`);
      expect(html, target).not.toContain("<a");
      expect(html, target).toContain("click");
    }
  });

  it("never loads images: an image becomes a link the user can choose to open", () => {
    const html = render("![the secret](https://evil.example/leak?d=secret) ![x](javascript:alert(1))");
    expect(html).not.toContain("<img");
    expect(html).toContain(
      '<a class="md-image-link" href="https://evil.example/leak?d=secret" target="_blank" rel="noopener noreferrer"',
    );
    expect(html).toContain("[Image: the secret]");
    expect(html).toContain("[Image: x]");
    expect(html).not.toContain("javascript:");
  });

  it("renders code blocks as plain text on the server (highlighted later in the browser), with a copy button", () => {
    const html = render("```ts\nconst a: number = 1;\n```\n\n```\nplain\n```");
    expect(html).toContain('<pre><code class="language-ts">const a: number = 1;\n</code></pre>');
    expect(html).not.toContain("hljs");
    expect(html).toContain('aria-label="Copy code"');
    expect(html).toContain("<span>ts</span>");
    expect(html).toContain("<span>code</span>");
  });
});

describe("safeUrl", () => {
  it("allows only absolute http, https and mailto URLs", () => {
    expect(safeUrl("https://example.org")).toBe("https://example.org/");
    expect(safeUrl("mailto:a@b.c")).toBe("mailto:a@b.c");
    expect(safeUrl("ftp://example.org")).toBeNull();
    expect(safeUrl("javascript:alert(1)")).toBeNull();
    expect(safeUrl("relative/path")).toBeNull();
    expect(safeUrl("")).toBeNull();
  });
});
