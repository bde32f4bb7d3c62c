import type { LoaderFunctionArgs } from "@remix-run/node";
import { exportConversation } from "~/chat/assistant-pages.server";

/** GET /api/conversations/<id>/markdown: the conversation as a Markdown download. */
export function loader({ request, params }: LoaderFunctionArgs) {
  return exportConversation(request, params.conversationId);
}
