import { json, type LoaderFunctionArgs } from "@remix-run/node";
import { storeHealth } from "~/health/store-health.server";
import { apiRoute } from "~/http/api-route.server";

/**
 * GET /healthz: each store's state; 503 when any is unreachable (for load
 * balancers). JSON with the API headers like every resource route; the check
 * behind it is shared and briefly cached (app/health/store-health.server.ts).
 */
export const loader = apiRoute(async (_args: LoaderFunctionArgs) => {
  const { ok, stores } = await storeHealth();
  return json({ status: ok ? "ok" : "degraded", stores }, { status: ok ? 200 : 503 });
});
