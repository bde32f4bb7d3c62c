import fs from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BUILD, pageWeights, type PageWeight } from "../../scripts/perf/page-weight";
import { buildApp } from "../support/app-process";

/**
 * ADR 051: what the assistant page makes a browser download before it is
 * usable, measured on the real production build (the same figures
 * `npm run bench` reports).
 */
const BUDGET_BYTES = 160 * 1024;

interface Metafile {
  inputs: Record<string, { imports: Array<{ path: string }> }>;
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

let weights: PageWeight[];
let metafile: Metafile;

beforeAll(async () => {
  await buildApp();
  weights = pageWeights();
  metafile = JSON.parse(fs.readFileSync(DEFAULT_BUILD.metafile, "utf8")) as Metafile;
}, 300_000);

const page = (path: string) => {
  const weight = weights.find((w) => w.page === path);
  if (!weight) throw new Error(`no page ${path} in the build: ${weights.map((w) => w.page).join(", ")}`);
  return weight;
};

describe("the assistant page's first load (ADR 051)", () => {
  it(`is at most ${BUDGET_BYTES / 1024} KB of JavaScript (gzip), for a new chat and an open conversation`, () => {
    for (const path of ["/nuvara", "/nuvara/:conversationId"]) {
      expect(page(path).gzipBytes, `${path}: ${(page(path).gzipBytes / 1024).toFixed(1)} KB`).toBeLessThanOrEqual(
        BUDGET_BYTES,
      );
    }
  });

  it("has no zod, and no AI SDK client, in the browser build at all: validation stays on the server (ADR 055)", () => {
    const browserInputs = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([input]) => input),
    );
    expect(browserInputs.length).toBeGreaterThan(100);
    expect(browserInputs.filter((input) => /node_modules\/(zod|ai|@ai-sdk\/[^/]+)\//.test(input))).toEqual([]);
  });

  it("loads neither the code highlighter nor the Markdown pipeline up front", () => {
    const packages = Object.keys(page("/nuvara").packages);
    for (const name of ["highlight.js", "lowlight", "react-markdown", "remark-gfm", "micromark"])
      expect(packages).not.toContain(name);
  });

  it("keeps zod off the admin and dashboard pages, whose forms are validated on the server", () => {
    for (const path of ["/dashboard", "/admin/users", "/admin/messages"])
      expect(Object.keys(page(path).packages), path).not.toContain("zod");
  });
});
