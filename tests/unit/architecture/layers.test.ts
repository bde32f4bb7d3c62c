import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The layers of docs/architecture.md, as the linter holds them
 * (eslint.config.js): a probe file placed in a layer imports from above it
 * and must be refused, from below it and must pass. And the app's own
 * imports form no circle.
 */

const eslint = new ESLint({ cwd: process.cwd() });

async function layerErrors(probePath: string, source: string) {
  const [result] = await eslint.lintText(source, { filePath: path.resolve(probePath) });
  return result.messages
    .filter((message) => message.ruleId?.startsWith("boundaries/"))
    .map((message) => message.message);
}

describe("the layer rule", () => {
  it("refuses an import from a higher layer", async () => {
    const errors = await layerErrors(
      "app/data/layer-probe.server.ts",
      'import { loader } from "~/routes/nuvara";\nexport const probe = loader;\n',
    );
    expect(errors).toEqual([expect.stringMatching(/category "data".*category "routes"/)]);
  });

  it("refuses the database layer reaching up into auth", async () => {
    const errors = await layerErrors(
      "app/db/layer-probe.server.ts",
      'import { requireUser } from "~/auth/session.server";\nexport const probe = requireUser;\n',
    );
    expect(errors).toEqual([expect.stringMatching(/category "foundation".*category "auth"/)]);
  });

  it("accepts imports from the same layer and the layers below", async () => {
    const source = [
      'import { getDb } from "~/db/client.server";',
      'import { requireUser } from "~/auth/session.server";',
      'import { listConversations } from "~/data/conversations.server";',
      "export const probe = [getDb, requireUser, listConversations];",
      "",
    ].join("\n");
    expect(await layerErrors("app/chat/layer-probe.server.ts", source)).toEqual([]);
  });

  it("refuses a file outside every layer", async () => {
    const errors = await layerErrors("app/misc/layer-probe.ts", "export const probe = 1;\n");
    expect(errors).toEqual([expect.stringMatching(/does not match any file pattern/)]);
  });
});

/** Every app module and the app modules it imports (type-only imports included: they are part of the design). */
function importGraph(): Map<string, string[]> {
  const files = fs.globSync("app/**/*.{ts,tsx}");
  const options: ts.CompilerOptions = {
    baseUrl: ".",
    paths: { "~/*": ["./app/*"] },
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowJs: true,
    jsx: ts.JsxEmit.ReactJSX,
  };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map(
        ({ fileName }) =>
          ts.resolveModuleName(fileName, path.resolve(file), options, ts.sys).resolvedModule?.resolvedFileName,
      )
      .filter((target): target is string => Boolean(target) && !target!.includes("node_modules"))
      .map((target) => path.relative(process.cwd(), target));
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components with more than one module (or a module importing itself): Tarjan's algorithm. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("the app's imports", () => {
  it("form no circle", () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(200);
    expect(circles(graph)).toEqual([]);
  });

  it("find circles when there are some (the check itself)", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(circles(graph)).toEqual([["a", "b", "c"]]);
  });
});
