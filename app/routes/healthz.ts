import { json } from "@remix-run/node";
import { sql } from "drizzle-orm";
import { getConfig } from "~/config.server";
import { readRole } from "~/data/roles.server";
import { getDb } from "~/db/client.server";
import { withDeadline } from "~/deadline.server";
import { adminAuth } from "~/firebase.server";

/** GET /healthz: each store's state; 503 when any is unreachable (for load balancers). */

async function probe(name: string, check: () => Promise<unknown>): Promise<[string, string]> {
  try {
    await withDeadline(name, getConfig().backendTimeoutMs, check());
    return [name, "ok"];
  } catch {
    return [name, "unreachable"];
  }
}

async function identityReachable() {
  try {
    await adminAuth().getUser("healthz-probe");
  } catch (error) {
    // "No such user" is an answer: the service is up.
    if ((error as { code?: string }).code === "auth/user-not-found") return;
    throw error;
  }
}

export async function loader() {
  const results = await Promise.all([
    probe("identity", identityReachable),
    probe("firestore", () => readRole("healthz@probe.invalid")),
    probe("postgres", async () => (await getDb()).execute(sql`select 1`)),
  ]);
  const stores = Object.fromEntries(results);
  const ok = results.every(([, state]) => state === "ok");
  return json(
    { status: ok ? "ok" : "degraded", stores },
    { status: ok ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
}
