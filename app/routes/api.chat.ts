import type { ActionFunctionArgs } from "@remix-run/node";
import { handleChatRequest } from "~/chat/chat-endpoint.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** The chat endpoint (app/chat/chat-endpoint.server.ts): POST only. */
export const action = apiRoute(({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return methodNotAllowed("POST");
  return handleChatRequest(request);
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
