import type { ActionFunctionArgs } from "@remix-run/node";
import { stopRunResponse } from "~/chat/runs/run-endpoints.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** POST /api/runs/stop: stops a reply wherever it is being written (app/chat/runs/run-endpoints.server.ts). */
export const action = apiRoute(({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return methodNotAllowed("POST");
  return stopRunResponse(request);
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
