import type { ActionFunctionArgs } from "@remix-run/node";
import { decideToolCallResponse } from "~/chat/tool-approval-endpoint.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** POST /api/tool-approvals: approve or deny a server's tool call (app/chat/tool-approval-endpoint.server.ts). */
export const action = apiRoute(({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return methodNotAllowed("POST");
  return decideToolCallResponse(request);
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
