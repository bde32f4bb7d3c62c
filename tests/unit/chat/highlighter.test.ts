import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import hljs from "highlight.js";
import { describe, expect, it } from "vitest";
import { ALIASES, GRAMMAR_NAMES, grammarFor, highlight, isLoaded, load } from "~/components/chat/highlighter";

const html = (nodes: ReturnType<typeof highlight>) => renderToStaticMarkup(createElement("code", null, nodes));

describe("the on-demand highlighter (ADR 051)", () => {
  it("highlights a language only once its grammar is loaded", async () => {
    expect(isLoaded("py")).toBe(false);
    expect(highlight("py", "def f(): return 1\n")).toBeNull();
    expect(await load("py")).toBe(true);
    expect(isLoaded("python")).toBe(true);
    expect(html(highlight("py", "def f(): return 1\n"))).toContain('<span class="hljs-keyword">def</span>');
  });

  it("keeps the code's text and escapes it", async () => {
    await load("html");
    const code = '<script>alert("x")</script> & <b onclick="y">';
    const out = html(highlight("html", code));
    expect(out).not.toMatch(/<script|<b /);
    expect(out.replace(/<[^>]+>/g, "")).toBe(
      renderToStaticMarkup(createElement("code", null, code)).replace(/<[^>]+>/g, ""),
    );
  });

  it("loads the grammars an embedding one needs (CSS and JavaScript inside HTML)", async () => {
    await load("xml");
    expect(isLoaded("css")).toBe(true);
    expect(isLoaded("javascript")).toBe(true);
    expect(html(highlight("html", "<script>const a = 1;</script>"))).toContain(
      '<span class="hljs-keyword">const</span>',
    );
  });

  it("knows no grammar for unknown or inherited names", async () => {
    for (const name of ["cobol-2077", "__proto__", "constructor", "toString"]) {
      expect(grammarFor(name), name).toBeNull();
      expect(await load(name), name).toBe(false);
    }
  });

  it("has every alias highlight.js gives its grammars, and only those", () => {
    const expected: Record<string, string> = {};
    for (const name of GRAMMAR_NAMES) {
      expect(hljs.getLanguage(name), name).toBeDefined();
      for (const alias of hljs.getLanguage(name)!.aliases ?? []) expected[alias] = name;
    }
    expect(ALIASES).toEqual(expected);
  });
});
