import { isRouteErrorResponse } from "@remix-run/react";
import type { ServerBuild } from "@remix-run/node";
import { log } from "~/log/logger.server";
import { contextFor, runInRequest } from "~/log/request-context.server";
import { metrics } from "./metrics.server";

/**
 * Every loader and action of the server build, timed and logged by Remix
 * route id and response status, each run inside its request's log context
 * (request id, uid; app/log/request-context.server.ts). Operators run plain
 * `remix-serve build/index.js`, which has no middleware of ours: like the
 * origin guard (ADR 047), this wraps the route modules in the build itself
 * (server.ts; tests/support/remix-app.ts for the test build). ADR 052.
 */
type RouteModule = ServerBuild["routes"][string]["module"];
type Handler = NonNullable<RouteModule["loader"]>;
type Kind = "loader" | "action";

export const REQUEST_ID_HEADER = "X-Request-Id";

/** `response` with the request id; a copy when its headers are immutable (a fetched response). */
export function withRequestId(response: Response, requestId: string): Response {
  try {
    response.headers.set(REQUEST_ID_HEADER, requestId);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(REQUEST_ID_HEADER, requestId);
    return copy;
  }
}

function statusOfError(error: unknown, request: Request): number {
  if (error instanceof Response) return error.status;
  if (isRouteErrorResponse(error)) return error.status;
  // The browser went away (v3_throwAbortReason): nginx's "client closed request".
  return request.signal.aborted ? 499 : 500;
}

function instrument(route: string, kind: Kind, handler: Handler): Handler {
  return (args) => {
    const context = contextFor(args.context, args.request);
    return runInRequest(context, route, async () => {
      const started = performance.now();
      let status = 200;
      try {
        const result = await handler(args);
        if (!(result instanceof Response)) return result;
        status = result.status;
        // Resource routes (/api/*, /healthz…) send this response as it is; a page's is replaced by entry.server, which sets its own.
        return withRequestId(result, context.requestId);
      } catch (error) {
        status = statusOfError(error, args.request);
        throw error instanceof Response ? withRequestId(error, context.requestId) : error;
      } finally {
        const seconds = (performance.now() - started) / 1000;
        const labels = { route, kind, status: String(status) };
        const m = metrics();
        m.requests.inc(labels);
        m.requestSeconds.observe(labels, seconds);
        // The method and the route id, never the path or query: they can name a conversation or carry user text.
        log().info(
          { kind, method: args.request.method, status, ms: Math.round(seconds * 10_000) / 10 },
          `${kind} ${route} ${status}`,
        );
      }
    });
  };
}

/** The build's routes with every loader and action instrumented; routes without either are unchanged. */
export function withInstrumentation(routes: ServerBuild["routes"]): ServerBuild["routes"] {
  return Object.fromEntries(
    Object.entries(routes).map(([id, route]) => {
      const { loader, action } = route.module;
      if (!loader && !action) return [id, route];
      const module = { ...route.module };
      if (loader) module.loader = instrument(id, "loader", loader);
      if (action) module.action = instrument(id, "action", action as Handler);
      return [id, { ...route, module }];
    }),
  );
}
