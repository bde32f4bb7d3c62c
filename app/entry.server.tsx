import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer, isRouteErrorResponse } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { NonceProvider } from "~/components/nonce";
import { contextFor, runInRequest } from "~/log/request-context.server";
import { logUnexpectedError } from "~/log/safe-log.server";
import { REQUEST_ID_HEADER } from "~/metrics/instrument-routes.server";
import { applySecurityHeaders, createNonce } from "~/http/security-headers.server";

const ABORT_DELAY = 5_000;

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = createNonce();
  applySecurityHeaders(responseHeaders, request, nonce);
  // The id its loaders logged under (app/log/request-context.server.ts).
  const requestContext = contextFor(loadContext, request);
  responseHeaders.set(REQUEST_ID_HEADER, requestContext.requestId);
  // Bots get the whole document at once; browsers get it streamed.
  const readyEvent = isbot(request.headers.get("user-agent") ?? "") ? "onAllReady" : "onShellReady";
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        [readyEvent]() {
          shellRendered = true;
          const body = new PassThrough();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          );
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered)
            runInRequest(requestContext, undefined, () =>
              logUnexpectedError(`render ${new URL(request.url).pathname}`, error),
            );
        },
      },
    );
    setTimeout(abort, ABORT_DELAY);
  });
}

/** Loader and action data for client navigations get the same headers (no CSP: they are JSON). */
export const handleDataRequest: HandleDataRequestFunction = (response, { request, context }) => {
  applySecurityHeaders(response.headers, request);
  response.headers.set(REQUEST_ID_HEADER, contextFor(context, request).requestId);
  return response;
};

/**
 * Errors of loaders, actions and rendering (Remix's default logs the whole
 * error, whose message can hold a failed query's parameters): the class, the
 * code and the stack frames, one escaped line (ADR 052).
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  // A 404 or 405 from the router (an unknown path) is the client's doing: no log line per request.
  if (isRouteErrorResponse(error) && error.status < 500) return;
  const cause = isRouteErrorResponse(error) ? (error as { error?: unknown }).error : error;
  if (cause === undefined) return;
  // Remix calls this outside the loader that threw: the line still carries its request's id.
  runInRequest(contextFor(context, request), undefined, () =>
    logUnexpectedError(`${request.method} ${new URL(request.url).pathname}`, cause),
  );
};
