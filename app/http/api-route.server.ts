import { json } from "@remix-run/node";
import { logUnexpectedError } from "~/log/safe-log.server";
import { applyApiHeaders } from "~/http/security-headers.server";

/**
 * The one wrapper for the loaders and actions of /api/* (resource routes).
 * Remix sends their responses as they are: they do not pass through
 * entry.server's handleRequest or handleDataRequest, where pages and data
 * requests get their security headers. So every response an API handler
 * returns or throws, and the 500 for an unexpected error, leaves here with
 * the API headers (app/http/security-headers.server.ts).
 */
type Handler<Args extends { request: Request }> = (args: Args) => Response | Promise<Response>;

function withApiHeaders(response: Response, request: Request): Response {
  try {
    applyApiHeaders(response.headers, request);
    return response;
  } catch {
    // Headers of a response made elsewhere may be immutable: copy them.
    const copy = new Response(response.body, response);
    applyApiHeaders(copy.headers, request);
    return copy;
  }
}

export function apiRoute<Args extends { request: Request }>(handler: Handler<Args>): (args: Args) => Promise<Response> {
  return async (args) => {
    try {
      return withApiHeaders(await handler(args), args.request);
    } catch (error) {
      if (error instanceof Response) throw withApiHeaders(error, args.request);
      // A JSON 500 that says nothing of the cause (Remix's own is plain text, without these headers).
      // The log gets the class, code and stack frames, never the message (it can hold user text; ADR 052).
      logUnexpectedError(`api ${new URL(args.request.url).pathname}`, error);
      return withApiHeaders(
        json({ error: "Something went wrong on our side. Please try again." }, { status: 500 }),
        args.request,
      );
    }
  };
}

/** 405 for a method an API route does not take. */
export function methodNotAllowed(allow: "GET" | "POST"): Response {
  return json({ error: `Use ${allow}.` }, { status: 405, headers: { Allow: allow } });
}
