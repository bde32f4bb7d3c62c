import type { LoaderFunctionArgs } from "@remix-run/node";
import { conversationEventsResponse } from "~/chat/live/events-endpoint.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** GET /api/conversations/events: the user's conversation list, live (app/chat/live/events-endpoint.server.ts). */
export const loader = apiRoute(({ request }: LoaderFunctionArgs) => conversationEventsResponse(request));

export const action = apiRoute(() => methodNotAllowed("GET"));
