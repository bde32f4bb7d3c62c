import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";

/**
 * ADR 050: a reply that passes the cost scan but still makes the Markdown
 * pipeline throw (a parser bug, a plugin failure) is shown as plain text:
 * one message never fails its page.
 */

vi.mock("react-markdown", () => ({
  default: () => {
    throw new RangeError("Maximum call stack size exceeded");
  },
}));

const { Markdown } = await import("~/components/chat/markdown");

describe("Markdown when rendering throws", () => {
  it("falls back to the reply as escaped plain text instead of throwing", () => {
    const html = renderToString(createElement(Markdown, null, "Hello **there** <b>x</b>"));
    expect(html).toContain('class="markdown markdown-plain"');
    expect(html).toContain("Hello **there** &lt;b&gt;x&lt;/b&gt;");
  });
});
