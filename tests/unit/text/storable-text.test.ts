import { describe, expect, it } from "vitest";
import { isStorableText, storableString } from "~/text/storable-text";

describe("storable text", () => {
  it.each([
    ["plain", "hello world"],
    ["emoji (a surrogate pair)", "thumbs 👍 up"],
    ["accents and CJK", "café 日本語"],
    ["newlines and tabs", "a\n\tb"],
  ])("accepts %s", (_, text) => {
    expect(isStorableText(text)).toBe(true);
  });

  it.each([
    ["a NUL byte", "hello\u0000world"],
    ["a lone high surrogate", "hi \ud800 there"],
    ["a lone low surrogate", "hi \udc00 there"],
    ["a high surrogate at the end", "end\ud83d"],
    ["two high surrogates", "\ud83d\ud83d"],
  ])("refuses %s", (_, text) => {
    expect(isStorableText(text)).toBe(false);
    expect(storableString().safeParse(text).success).toBe(false);
  });
});
