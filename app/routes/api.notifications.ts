import type { ActionFunctionArgs } from "@remix-run/node";
import { notificationsResponse } from "~/chat/notify/notify-endpoint.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** POST /api/notifications: the devices told when a reply is done, and how (app/chat/notify/notify-endpoint.server.ts). */
export const action = apiRoute(({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return methodNotAllowed("POST");
  return notificationsResponse(request);
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
