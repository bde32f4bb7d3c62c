import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/**
 * What every log line of one request carries: its id (also sent back as
 * X-Request-Id) and the signed-in account once the session is known.
 *
 * Remix hands each loader and action a fresh copy of the request (it strips
 * `_data`/`index`), so the request object cannot tie them together; the load
 * context can: remix-serve (and the test handler) make one per request and
 * pass that same object to every loader, action and to entry.server. It keys
 * the context here, and each loader or action runs inside it
 * (app/metrics/instrument-routes.server.ts), so a log line written anywhere
 * below finds it through AsyncLocalStorage.
 */
export interface RequestContext {
  requestId: string;
  uid?: string;
}

/** One loader's or action's view: the request's shared context and its own route. */
interface CallContext {
  request: RequestContext;
  /** The Remix route id (never the raw path: it can name a user's data); none outside a loader or action. */
  route?: string;
}

const storage = new AsyncLocalStorage<CallContext>();
const byLoadContext = new WeakMap<object, RequestContext>();

// A proxy's id is honoured only when it cannot carry anything into a log line or a header.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The incoming X-Request-Id if it is a short safe token, else a new one. */
export function requestIdFrom(request: Request): string {
  const incoming = request.headers.get("x-request-id")?.trim();
  return incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** The one context of the request that `loadContext` belongs to, made on first use. */
export function contextFor(loadContext: unknown, request: Request): RequestContext {
  const key = loadContext && typeof loadContext === "object" ? loadContext : undefined;
  const known = key ? byLoadContext.get(key) : undefined;
  if (known) return known;
  const context: RequestContext = { requestId: requestIdFrom(request) };
  if (key) byLoadContext.set(key, context);
  return context;
}

/** The request id already given to the request of `loadContext`, if any. */
export function requestIdOf(loadContext: unknown): string | undefined {
  return loadContext && typeof loadContext === "object" ? byLoadContext.get(loadContext)?.requestId : undefined;
}

/** Runs `work` (one loader or action of route `route`) as part of the request of `context`. */
export function runInRequest<T>(context: RequestContext, route: string | undefined, work: () => T): T {
  return storage.run({ request: context, route }, work);
}

/** What a log line written now should say about its request, if it belongs to one. */
export function currentRequest(): { requestId: string; route?: string; uid?: string } | undefined {
  const call = storage.getStore();
  return call && { requestId: call.request.requestId, route: call.route, uid: call.request.uid };
}

/** Once the session names the account, every later line of the request says which (its uid, never its email). */
export function noteRequestUser(uid: string): void {
  const call = storage.getStore();
  if (call) call.request.uid = uid;
}
