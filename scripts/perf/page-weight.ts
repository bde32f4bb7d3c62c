import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

/**
 * The JavaScript each page loads first, read from the build (ADR 051): the
 * browser's manifest says which module and shared chunks every route needs,
 * and a page loads the entry plus those of each route from root down to its
 * own. Sizes are each file gzipped on its own, as a server sends them; the
 * compiler's metafile says which packages are inside (to find zod).
 * Chunks loaded later with import() (the code highlighter) are not counted.
 */

interface ManifestRoute {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  module: string;
  imports?: string[];
}

export interface BrowserManifest {
  entry: { module: string; imports?: string[] };
  routes: Record<string, ManifestRoute>;
}

interface Metafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

export interface PageWeight {
  /** The URL pattern, e.g. /nuvara/:conversationId. */
  page: string;
  routeId: string;
  files: string[];
  gzipBytes: number;
  /** npm packages in those files (bytes each adds to the minified output). */
  packages: Record<string, number>;
}

export interface BuildPaths {
  /** Where remix-serve serves /build/ from. */
  publicDir: string;
  /** The compiler's metafile of the browser build. */
  metafile: string;
  /** The app's sources, to tell pages from resource routes. */
  appDir: string;
}

export const DEFAULT_BUILD: BuildPaths = {
  publicDir: path.resolve("public"),
  metafile: path.resolve("build/metafile.js.json"),
  appDir: path.resolve("app"),
};

export function readManifest(publicDir: string): BrowserManifest {
  const dir = path.join(publicDir, "build");
  const file = fs.readdirSync(dir).find((name) => /^manifest-[A-Z0-9]+\.js$/.test(name));
  if (!file) throw new Error(`No manifest in ${dir}: build the app first.`);
  const source = fs.readFileSync(path.join(dir, file), "utf8");
  return JSON.parse(source.replace(/^window\.__remixManifest=/, "").replace(/;\s*$/, "")) as BrowserManifest;
}

/** Root first, the route itself last. */
export function routeChain(manifest: BrowserManifest, routeId: string): ManifestRoute[] {
  const chain: ManifestRoute[] = [];
  for (
    let route: ManifestRoute | undefined = manifest.routes[routeId];
    route;
    route = route.parentId ? manifest.routes[route.parentId] : undefined
  ) {
    chain.unshift(route);
  }
  return chain;
}

/** The files a first visit to the route loads: the entry, then each route's module and shared chunks. */
export function firstLoadFiles(manifest: BrowserManifest, routeId: string): string[] {
  const files = new Set([manifest.entry.module, ...(manifest.entry.imports ?? [])]);
  for (const route of routeChain(manifest, routeId)) {
    files.add(route.module);
    for (const file of route.imports ?? []) files.add(file);
  }
  return [...files];
}

/** The URL pattern of a route, from its own and its parents' paths. */
export function pagePath(manifest: BrowserManifest, routeId: string): string {
  const parts = routeChain(manifest, routeId)
    .map((route) => route.path ?? "")
    .filter((part) => part !== "");
  return `/${parts.join("/")}`;
}

function packageOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(input);
  return match ? match[1] : "(app)";
}

/** Whether the route's source exports a component (a resource route does not). */
function rendersPage(routeId: string, appDir: string): boolean {
  const candidates = [".tsx", ".ts", ".jsx", ".js"].flatMap((ext) => [`${routeId}${ext}`, `${routeId}/route${ext}`]);
  const file = candidates.map((name) => path.join(appDir, name)).find((name) => fs.existsSync(name));
  return file !== undefined && /^export default\b/m.test(fs.readFileSync(file, "utf8"));
}

/**
 * Every page: each route that renders (its source exports a component) and
 * has no child routes, so a URL ends there. Resource routes are left out.
 */
export function pageWeights(build: BuildPaths = DEFAULT_BUILD): PageWeight[] {
  const manifest = readManifest(build.publicDir);
  const metafile = JSON.parse(fs.readFileSync(build.metafile, "utf8")) as Metafile;
  const outputFor = (file: string) => {
    const key = Object.keys(metafile.outputs).find((name) => name.endsWith(file.replace(/^\/build\//, "/")));
    return key ? metafile.outputs[key] : undefined;
  };
  const parents = new Set(Object.values(manifest.routes).map((route) => route.parentId));
  const pages: PageWeight[] = [];
  for (const route of Object.values(manifest.routes)) {
    if (parents.has(route.id) || !rendersPage(route.id, build.appDir)) continue;
    const files = firstLoadFiles(manifest, route.id);
    let gzipBytes = 0;
    const packages: Record<string, number> = {};
    for (const file of files) {
      gzipBytes += gzipSync(fs.readFileSync(path.join(build.publicDir, file))).length;
      for (const [input, { bytesInOutput }] of Object.entries(outputFor(file)?.inputs ?? {})) {
        if (bytesInOutput === 0) continue;
        const name = packageOf(input);
        packages[name] = (packages[name] ?? 0) + bytesInOutput;
      }
    }
    pages.push({ page: pagePath(manifest, route.id), routeId: route.id, files, gzipBytes, packages });
  }
  return pages.sort((a, b) => a.page.localeCompare(b.page));
}

/** The packages that weigh most in a page's first load, largest first. */
export function heaviestPackages(weight: PageWeight, count: number): Array<[string, number]> {
  return Object.entries(weight.packages)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count);
}
