import { describe, expect, it } from "vitest";
import { plainText, webAddress } from "~/search/providers.server";
import { WebSourceList } from "~/search/source-list";

const page = (name: string) => ({ title: name, url: `https://example.com/${name}`, snippet: `About ${name}.` });

describe("the pages a reply found, numbered for citation", () => {
  it("numbers pages after the reply's passages, and a page found again keeps its number", () => {
    const list = new WebSourceList();
    list.startAfter(3);
    expect(list.add([page("a"), page("b")]).map((source) => source.number)).toEqual([4, 5]);
    const before = list.version;
    expect(list.add([page("b"), page("c")]).map((source) => source.number)).toEqual([5, 6]);
    expect(list.version).toBeGreaterThan(before);
    expect(list.byNumber(6)?.url).toBe("https://example.com/c");
    expect(list.sources.map((source) => source.number)).toEqual([4, 5, 6]);
  });

  it("changes its version only when a page is new", () => {
    const list = new WebSourceList();
    list.add([page("a")]);
    const version = list.version;
    list.add([page("a")]);
    expect(list.version).toBe(version);
  });
});

describe("what a search engine's result may carry", () => {
  it("keeps only http(s) addresses", () => {
    expect(webAddress("https://example.com/x")).toBe("https://example.com/x");
    expect(webAddress("javascript:alert(1)")).toBeUndefined();
    expect(webAddress("data:text/html,hi")).toBeUndefined();
    expect(webAddress(42)).toBeUndefined();
  });

  it("reads Brave's marked-up snippets as text", () => {
    expect(plainText("Brew at <strong>80&nbsp;degrees</strong> &amp; wait &#8230; &#x2014; <b>done</b>")).toBe(
      "Brew at 80 degrees & wait … — done",
    );
    expect(plainText("&bogus; &#99999999;")).toBe("&bogus; &#99999999;");
  });
});
