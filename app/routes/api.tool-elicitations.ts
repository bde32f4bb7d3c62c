import type { ActionFunctionArgs } from "@remix-run/node";
import { answerElicitationResponse } from "~/chat/tool-elicitation-endpoint.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** POST /api/tool-elicitations: answer a tool server's request for input (app/chat/tool-elicitation-endpoint.server.ts). */
export const action = apiRoute(({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return methodNotAllowed("POST");
  return answerElicitationResponse(request);
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
