import type { ActionFunctionArgs } from "@remix-run/node";
import { embeddingsResponse } from "~/api/embeddings-endpoint.server";
import { methodNotAllowed } from "~/api/openai-errors.server";
import { apiRoute } from "~/http/api-route.server";

/** POST /v1/embeddings: the OpenAI-compatible embeddings (app/api/embeddings-endpoint.server.ts). */
export const action = apiRoute(({ request }: ActionFunctionArgs) =>
  request.method === "POST" ? embeddingsResponse(request) : methodNotAllowed("POST"),
);

export const loader = apiRoute(() => methodNotAllowed("POST"));

/** Authenticated by a bearer key, never by a cookie: no session for another site to ride (app/http/origin-guard.server.ts). */
export const handle = { crossOrigin: "bearer" };
