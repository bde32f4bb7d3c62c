import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { modelsResponse } from "~/api/models-endpoint.server";
import { methodNotAllowed } from "~/api/openai-errors.server";
import { apiRoute } from "~/http/api-route.server";

/** GET /v1/models: the OpenAI-compatible list of the key's models (app/api/models-endpoint.server.ts). */
export const loader = apiRoute(({ request }: LoaderFunctionArgs) => modelsResponse(request));

export const action = apiRoute((_args: ActionFunctionArgs) => methodNotAllowed("GET"));

/** Authenticated by a bearer key, never by a cookie: no session for another site to ride (app/http/origin-guard.server.ts). */
export const handle = { crossOrigin: "bearer" };
