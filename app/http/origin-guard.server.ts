import { createRequire } from "node:module";
import { json, type ServerBuild } from "@remix-run/node";
import { isSameOrigin } from "~/auth/request.server";
import { applyApiHeaders } from "~/http/security-headers.server";

/**
 * The one origin check (CSRF) for every request that can change something
 * (ADR 047). It wraps the `action` of every route module of the server
 * build, so no route can forget it and no way of
 * reaching an action skips it: a document POST, a `?_data=<routeId>` data
 * request (Remix's own check covers documents only) and a resource route
 * alike. Both the compiled build (server.ts) and the test build
 * (tests/support/remix-app.ts) apply it with `withOriginGuard`.
 *
 * An action runs only for POST, PUT, PATCH and DELETE (Remix answers 405 to
 * any other method before any route code), so every request it sees needs
 * an Origin of this app; browsers send one with every such request, so a
 * request without one comes from a script or another tool, not our forms.
 */
export const CROSS_ORIGIN_REFUSAL = "Cross-origin requests are refused.";

const SAFE_METHODS = new Set(["GET", "HEAD"]);

type RouteModule = ServerBuild["routes"][string]["module"];
type Action = NonNullable<RouteModule["action"]>;

/**
 * The 403, thrown: a page's document request renders it in the shared error
 * boundary (which shows `error`), while a data request or a resource route
 * gets it as it is, JSON with the API headers (it is never a document).
 */
export function crossOriginRefusal(request: Request): Response {
  const response = json({ error: CROSS_ORIGIN_REFUSAL }, { status: 403 });
  applyApiHeaders(response.headers, request);
  return response;
}

function refusesOrigin(request: Request): boolean {
  return !SAFE_METHODS.has(request.method.toUpperCase()) && !isSameOrigin(request);
}

export function guardAction(action: Action): Action {
  return (args) => {
    // Before anything of the action runs: not even its body is read.
    if (refusesOrigin(args.request)) throw crossOriginRefusal(args.request);
    return action(args);
  };
}

/**
 * A route whose requests come from another server or a script, not a
 * browser's page, and are authenticated by something other than the cookie:
 * a signature over the body (the Stripe webhook, `handle.crossOrigin =
 * "signed"`) or a bearer key (the OpenAI-compatible API, "bearer"). It checks
 * that itself; no cookie is read there, so there is no session for a forged
 * request to ride on.
 */
export function signedInstead(module: RouteModule): boolean {
  const handle = (module as { handle?: { crossOrigin?: unknown } }).handle;
  return handle?.crossOrigin === "signed" || handle?.crossOrigin === "bearer";
}

/** The build's routes with every action behind the origin check; routes without one are unchanged. */
export function withOriginGuard(routes: ServerBuild["routes"]): ServerBuild["routes"] {
  return Object.fromEntries(
    Object.entries(routes).map(([id, route]) => {
      const action = route.module.action;
      if (!action || signedInstead(route.module)) return [id, route];
      return [id, { ...route, module: { ...route.module, action: guardAction(action) } }];
    }),
  );
}

/**
 * Remix refuses a page's document POST whose Origin differs from its Host on
 * its own, before any route code, with a bodiless 500 and no headers
 * (`throwIfPotentialCSRFAttack` in @remix-run/server-runtime's
 * handleDocumentRequest). The guard above refuses the same requests and more
 * (no Origin too), before the action, with a 403 that says why; so the
 * server build hands Remix's check over to it (ADR 047). Remix calls the
 * check through its module's exports object, which is what is replaced here;
 * only a check that would run *before* the guard is removed, and every action
 * is guarded, so nothing becomes reachable that was not. If a Remix upgrade
 * moves the check, this returns false and Remix's own 500 stands (refused all
 * the same; tests/integration/csrf.test.ts notices).
 */
export function handOriginCheckToGuard(): boolean {
  try {
    const remixActions = createRequire(import.meta.url)("@remix-run/server-runtime/dist/actions.js") as {
      throwIfPotentialCSRFAttack?: (headers: Headers) => void;
    };
    if (typeof remixActions.throwIfPotentialCSRFAttack !== "function") return false;
    remixActions.throwIfPotentialCSRFAttack = () => {};
    return true;
  } catch {
    return false;
  }
}
