import { createElement, type ReactNode } from "react";
import { createLowlight, type LanguageFn } from "lowlight";

/**
 * Code highlighting, loaded by ./code-highlight.ts only once a reply shows a
 * code block that names its language (ADR 051): this module and each
 * grammar are chunks of their own, kept out of the assistant page's first
 * load. Only `createLowlight` is imported, so lowlight's bundled grammar sets
 * (`all`, `common`) are left out of the chunk.
 */

type GrammarModule = { default: LanguageFn };

/**
 * lowlight's `common` set plus Dockerfile and PowerShell, each its own chunk:
 * a literal import() per grammar, since the compiler splits only literals.
 */
const GRAMMARS: Record<string, () => Promise<GrammarModule>> = {
  arduino: () => import("highlight.js/lib/languages/arduino"),
  bash: () => import("highlight.js/lib/languages/bash"),
  c: () => import("highlight.js/lib/languages/c"),
  cpp: () => import("highlight.js/lib/languages/cpp"),
  csharp: () => import("highlight.js/lib/languages/csharp"),
  css: () => import("highlight.js/lib/languages/css"),
  diff: () => import("highlight.js/lib/languages/diff"),
  dockerfile: () => import("highlight.js/lib/languages/dockerfile"),
  go: () => import("highlight.js/lib/languages/go"),
  graphql: () => import("highlight.js/lib/languages/graphql"),
  ini: () => import("highlight.js/lib/languages/ini"),
  java: () => import("highlight.js/lib/languages/java"),
  javascript: () => import("highlight.js/lib/languages/javascript"),
  json: () => import("highlight.js/lib/languages/json"),
  kotlin: () => import("highlight.js/lib/languages/kotlin"),
  less: () => import("highlight.js/lib/languages/less"),
  lua: () => import("highlight.js/lib/languages/lua"),
  makefile: () => import("highlight.js/lib/languages/makefile"),
  markdown: () => import("highlight.js/lib/languages/markdown"),
  objectivec: () => import("highlight.js/lib/languages/objectivec"),
  perl: () => import("highlight.js/lib/languages/perl"),
  php: () => import("highlight.js/lib/languages/php"),
  "php-template": () => import("highlight.js/lib/languages/php-template"),
  powershell: () => import("highlight.js/lib/languages/powershell"),
  python: () => import("highlight.js/lib/languages/python"),
  "python-repl": () => import("highlight.js/lib/languages/python-repl"),
  r: () => import("highlight.js/lib/languages/r"),
  ruby: () => import("highlight.js/lib/languages/ruby"),
  rust: () => import("highlight.js/lib/languages/rust"),
  scss: () => import("highlight.js/lib/languages/scss"),
  shell: () => import("highlight.js/lib/languages/shell"),
  sql: () => import("highlight.js/lib/languages/sql"),
  swift: () => import("highlight.js/lib/languages/swift"),
  typescript: () => import("highlight.js/lib/languages/typescript"),
  vbnet: () => import("highlight.js/lib/languages/vbnet"),
  wasm: () => import("highlight.js/lib/languages/wasm"),
  xml: () => import("highlight.js/lib/languages/xml"),
  yaml: () => import("highlight.js/lib/languages/yaml"),
};

/**
 * The other names highlight.js gives these grammars, so that "```py" finds
 * python before python is loaded (a unit test keeps this in step with
 * highlight.js).
 */
export const ALIASES: Record<string, string> = {
  ino: "arduino",
  sh: "bash",
  zsh: "bash",
  h: "c",
  cc: "cpp",
  "c++": "cpp",
  "h++": "cpp",
  hpp: "cpp",
  hh: "cpp",
  hxx: "cpp",
  cxx: "cpp",
  cs: "csharp",
  "c#": "csharp",
  patch: "diff",
  docker: "dockerfile",
  golang: "go",
  gql: "graphql",
  toml: "ini",
  jsp: "java",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsonc: "json",
  json5: "json",
  kt: "kotlin",
  kts: "kotlin",
  ktm: "kotlin",
  ktx: "kotlin",
  pluto: "lua",
  mk: "makefile",
  mak: "makefile",
  make: "makefile",
  md: "markdown",
  mkdown: "markdown",
  mkd: "markdown",
  mm: "objectivec",
  objc: "objectivec",
  "obj-c": "objectivec",
  "obj-c++": "objectivec",
  "objective-c++": "objectivec",
  pl: "perl",
  pm: "perl",
  pwsh: "powershell",
  ps: "powershell",
  ps1: "powershell",
  py: "python",
  gyp: "python",
  ipython: "python",
  pycon: "python-repl",
  rb: "ruby",
  gemspec: "ruby",
  podspec: "ruby",
  thor: "ruby",
  irb: "ruby",
  rs: "rust",
  console: "shell",
  shellsession: "shell",
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  vb: "vbnet",
  html: "xml",
  xhtml: "xml",
  rss: "xml",
  atom: "xml",
  xjb: "xml",
  xsd: "xml",
  xsl: "xml",
  plist: "xml",
  wsf: "xml",
  svg: "xml",
  yml: "yaml",
};

/** Grammars that embed others (HTML's <style> and <script>, PHP in HTML, a shell session's commands). */
const EMBEDS: Record<string, string[]> = {
  xml: ["css", "javascript"],
  "php-template": ["php", "xml"],
  shell: ["bash"],
  "python-repl": ["python"],
  markdown: ["xml"],
};

export const GRAMMAR_NAMES = Object.keys(GRAMMARS);

const lowlight = createLowlight();
const loading = new Map<string, Promise<void>>();

/** The grammar a code block's language names, or null when none of ours does. */
export function grammarFor(language: string): string | null {
  const name = language.toLowerCase();
  if (Object.hasOwn(GRAMMARS, name)) return name;
  return Object.hasOwn(ALIASES, name) ? ALIASES[name] : null;
}

/** Whether `language` can be highlighted now (its grammar is loaded). */
export function isLoaded(language: string): boolean {
  const grammar = grammarFor(language);
  return grammar !== null && lowlight.registered(grammar);
}

/** Loads the grammar `language` names and those it embeds; resolves false when there is none. */
export async function load(language: string): Promise<boolean> {
  const grammar = grammarFor(language);
  if (!grammar) return false;
  await Promise.all([grammar, ...(EMBEDS[grammar] ?? [])].map(loadGrammar));
  return true;
}

function loadGrammar(name: string): Promise<void> {
  let promise = loading.get(name);
  if (!promise) {
    promise = GRAMMARS[name]().then((module) => lowlight.register(name, module.default));
    // A failed download may be retried by a later code block.
    promise.catch(() => loading.delete(name));
    loading.set(name, promise);
  }
  return promise;
}

interface HastNode {
  type: string;
  value?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

/**
 * React elements for a highlighted code block. lowlight returns only text
 * and <span class="hljs-…"> elements; the text becomes React text (escaped),
 * and nothing but the class name is copied from the tree.
 */
function toReact(node: HastNode, key: number): ReactNode {
  if (node.type === "text") return node.value ?? "";
  if (node.type !== "element") return null;
  const className = Array.isArray(node.properties?.className) ? node.properties.className.join(" ") : undefined;
  return createElement("span", { key, className }, ...(node.children ?? []).map(toReact));
}

/** The code as highlighted spans, or null when its grammar is not loaded or highlighting fails. */
export function highlight(language: string, code: string): ReactNode[] | null {
  const grammar = grammarFor(language);
  if (!grammar || !lowlight.registered(grammar)) return null;
  try {
    const tree = lowlight.highlight(grammar, code) as { children: HastNode[] };
    return tree.children.map(toReact);
  } catch {
    return null;
  }
}
