import { json } from "@remix-run/node";
import { apiRoute } from "~/http/api-route.server";

/**
 * GET /livez: the process is alive and answering. It calls no backend, so an
 * orchestrator restarts the process only when the process itself is stuck,
 * never because a store is down (that is /healthz, the readiness check).
 */
export const loader = apiRoute(async () => json({ status: "alive" }));
