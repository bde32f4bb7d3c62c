import type { LoaderFunctionArgs } from "@remix-run/node";
import { exportConversation } from "~/chat/chat-pages.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** GET /api/conversations/<id>/markdown: the conversation as a Markdown download. */
export const loader = apiRoute(({ request, params }: LoaderFunctionArgs) =>
  exportConversation(request, params.conversationId),
);

// Without an action Remix would answer other methods itself, without the API headers.
export const action = apiRoute(() => methodNotAllowed("GET"));
