import { describe, expect, it } from "vitest";
import { markdownToPlainText, plainExcerpt } from "~/text/plain-text";

describe("a reply's Markdown as plain text", () => {
  it("removes the marks a reader never sees", () => {
    expect(markdownToPlainText("## Total\n\n**Bold** and *italic* and _also_ and ~~gone~~.")).toBe(
      "Total\n\nBold and italic and also and gone.",
    );
    expect(markdownToPlainText("- one\n- [x] two\n1. three\n> quoted")).toBe("one\ntwo\n1. three\nquoted");
    expect(markdownToPlainText("See [the docs](https://example.org) and ![a cat](https://x/cat.png).")).toBe(
      "See the docs and a cat.",
    );
    expect(markdownToPlainText("Run `npm test` now.\n\n```sh\nnpm run build\n```")).toBe(
      "Run npm test now.\n\nnpm run build",
    );
    expect(markdownToPlainText("| a | b |\n|---|:-:|\n| 1 | 2 |")).toBe("a · b\n\n1 · 2");
  });

  it("keeps what is not a mark, so the meaning stays", () => {
    expect(markdownToPlainText("19.99 * 3 = 59.97")).toBe("19.99 * 3 = 59.97");
    expect(markdownToPlainText("19.99 * 3 * 1.08 = 64.77")).toBe("19.99 * 3 * 1.08 = 64.77");
    expect(markdownToPlainText("2*3*4 is 24, snake_case_name stays")).toBe("2*3*4 is 24, snake_case_name stays");
    expect(markdownToPlainText("A literal \\*star\\* and `a * b`")).toBe("A literal *star* and a * b");
    expect(markdownToPlainText("-5 is negative; <b>html</b> shows as text")).toBe(
      "-5 is negative; <b>html</b> shows as text",
    );
  });

  it("makes a one-line excerpt cut at a word", () => {
    expect(plainExcerpt("# Title\n\nFirst line.\nSecond **line**.", 100)).toBe("Title First line. Second line.");
    expect(plainExcerpt("one two three four five six", 14)).toBe("one two three…");
  });
});
