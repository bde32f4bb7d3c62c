import type { ActionFunctionArgs } from "@remix-run/node";
import { handleStripeWebhook } from "~/billing/webhook.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** Stripe's servers post here, not a browser: authenticated by Stripe's signature, not the origin (app/http/origin-guard.server.ts). */
export const handle = { crossOrigin: "signed" };

export const action = apiRoute(({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return methodNotAllowed("POST");
  return handleStripeWebhook(request);
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
