import { json, type ActionFunctionArgs } from "@remix-run/node";
import { handleChatRequest } from "~/chat/chat-endpoint.server";

/** The chat endpoint (app/chat/chat-endpoint.server.ts): POST only. */
export function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") {
    return json({ error: "Send messages with POST." }, { status: 405, headers: { Allow: "POST" } });
  }
  return handleChatRequest(request);
}

export function loader() {
  return json({ error: "Send messages with POST." }, { status: 405, headers: { Allow: "POST" } });
}
