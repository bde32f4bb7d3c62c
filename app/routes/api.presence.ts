import type { ActionFunctionArgs } from "@remix-run/node";
import { presenceResponse } from "~/chat/notify/notify-endpoint.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** POST /api/presence: a tab says whether it is visible, so no notice goes out while one is (app/chat/notify/notify-endpoint.server.ts). */
export const action = apiRoute(({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return methodNotAllowed("POST");
  return presenceResponse(request);
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
