import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The README is the way in: every relative link in it, and in the documents
 * it links to, names a file of this repository (and, with a #fragment, one of
 * that file's headings).
 */
const README = "README.md";

/** The relative links of a Markdown file, as written: `[text](target)`, not inside code. */
function relativeLinks(file: string): string[] {
  const text = fs
    .readFileSync(file, "utf8")
    .replace(/```[\s\S]*?```/g, "")
    .replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]).filter((target) => !/^[a-z]+:/i.test(target));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchors(file: string): Set<string> {
  const headings = fs.readFileSync(file, "utf8").match(/^#{1,6} .+$/gm) ?? [];
  return new Set(
    headings.map((heading) =>
      heading
        .replace(/^#+ /, "")
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    ),
  );
}

function brokenLinks(file: string): string[] {
  return relativeLinks(file).filter((target) => {
    const [pathPart, fragment] = target.split("#");
    const resolved = pathPart ? path.join(path.dirname(file), decodeURI(pathPart)) : file;
    if (!fs.existsSync(resolved)) return true;
    return fragment !== undefined && resolved.endsWith(".md") && !anchors(resolved).has(fragment);
  });
}

const linkedDocs = relativeLinks(README)
  .map((target) => path.join(path.dirname(README), target.split("#")[0]))
  .filter((file) => file.endsWith(".md") && fs.existsSync(file));

describe("documentation links", () => {
  it("the README links to the operations, configuration, features, architecture and security documents", () => {
    expect(linkedDocs).toEqual(
      expect.arrayContaining([
        "docs/operations.md",
        "docs/configuration.md",
        "docs/features.md",
        "docs/architecture.md",
        "docs/security.md",
      ]),
    );
  });

  it.each([README, ...new Set(linkedDocs)])("every relative link in %s resolves", (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it("the README stays short (about 8 KB at most)", () => {
    expect(fs.statSync(README).size).toBeLessThanOrEqual(8 * 1024);
  });

  it("the decisions index lists every ADR", () => {
    const index = fs.readFileSync("docs/decisions/README.md", "utf8");
    const records = fs.readdirSync("docs/decisions").filter((name) => /^\d{3}-.+\.md$/.test(name));
    expect(records.filter((name) => !index.includes(`(${name})`))).toEqual([]);
  });
});
