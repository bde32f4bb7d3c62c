import { json } from "@remix-run/node";
import { apiRoute } from "~/http/api-route.server";

/**
 * Any /api/* path no route serves: a JSON 404 with the API headers, never
 * the HTML page of routes/$ (/api/* responses are never documents:
 * docs/security.md). Every named /api route outranks this splat, however deep.
 */
const notFound = apiRoute(() => json({ error: "Not found." }, { status: 404 }));

export const loader = notFound;
export const action = notFound;
