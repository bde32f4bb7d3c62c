import path from "node:path";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import { UNSAFE_flatRoutes as flatRoutes } from "@remix-run/dev";
import { handOriginCheckToGuard, withOriginGuard } from "~/http/origin-guard.server";
import { withInstrumentation } from "~/metrics/instrument-routes.server";
import remixConfig from "../../remix.config.js";

/**
 * The whole app in-process, as remix-serve runs it (root loader, route
 * loaders and actions, entry.server's headers, error boundaries, rendering),
 * built from the source modules rather than build/: for integration tests
 * that need what a browser would receive, not one loader's return value.
 * The client assets manifest is a stand-in: no script is ever run here.
 */
const appDirectory = path.resolve("app");

/** The routes as the compiler sees them (app/routes, flat routes), with the root. */
export function routeManifest() {
  return {
    root: { id: "root", path: "", file: "root.tsx" },
    ...flatRoutes(appDirectory, remixConfig.ignoredRouteFiles),
  };
}

/** A route's module, loaded from source. */
export function importRoute(route: { file: string }): Promise<Record<string, unknown>> {
  return import(/* @vite-ignore */ path.join(appDirectory, route.file));
}

export async function appHandler(): Promise<(request: Request) => Promise<Response>> {
  const manifest = routeManifest();
  const routes: ServerBuild["routes"] = {};
  const assetRoutes: Record<string, unknown> = {};
  for (const route of Object.values(manifest)) {
    const module = await importRoute(route);
    const {
      id,
      parentId,
      path: routePath,
      index,
      caseSensitive,
    } = route as typeof route & { parentId?: string; index?: boolean; caseSensitive?: boolean };
    routes[id] = {
      id,
      parentId,
      path: routePath,
      index,
      caseSensitive,
      module: module as unknown as ServerBuild["routes"][string]["module"],
    };
    assetRoutes[id] = {
      id,
      parentId,
      path: routePath,
      index,
      caseSensitive,
      module: `/build/${id}.js`,
      imports: [],
      hasAction: "action" in module,
      hasLoader: "loader" in module,
      hasClientAction: false,
      hasClientLoader: false,
      hasErrorBoundary: "ErrorBoundary" in module,
    };
  }
  const build = {
    mode: "production",
    entry: { module: await import("~/entry.server") },
    // The same origin check (ADR 047), metrics and request ids (ADR 052) as the compiled build (server.ts).
    routes: withInstrumentation(withOriginGuard(routes)),
    assets: {
      version: "test",
      url: "/build/manifest-test.js",
      entry: { module: "/build/entry.client.js", imports: [] },
      routes: assetRoutes,
    },
    publicPath: "/build/",
    assetsBuildDirectory: "public/build",
    future: remixConfig.future,
    isSpaMode: false,
  } as unknown as ServerBuild;
  // As server.ts does: the guard, not Remix, refuses cross-origin document posts.
  if (!handOriginCheckToGuard()) throw new Error("Remix's origin check moved: see handOriginCheckToGuard (ADR 047).");
  const handle = createRequestHandler(build, "production");
  return (request) => handle(request);
}
