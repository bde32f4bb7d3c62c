import type { LoaderFunctionArgs } from "@remix-run/node";
import { readRunResponse } from "~/chat/runs/run-endpoints.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** GET /api/runs/<id>: a running reply, from its start and then live (app/chat/runs/run-endpoints.server.ts). */
export const loader = apiRoute(({ request, params }: LoaderFunctionArgs) => readRunResponse(request, params.runId));

export const action = apiRoute(() => methodNotAllowed("GET"));
