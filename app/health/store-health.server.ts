import { sql } from "drizzle-orm";
import { getConfig } from "~/config.server";
import { readRole } from "~/auth/roles.server";
import { getDb } from "~/db/client.server";
import { withDeadline } from "~/deadline.server";
import { adminAuth } from "~/firebase.server";

/**
 * The state of each store for GET /healthz. A check costs an identity
 * lookup, a Firestore read (billed in production) and a PostgreSQL query,
 * and /healthz is public, so concurrent requests share one check, and a
 * healthy answer is kept a few seconds: a flood of /healthz
 * costs the backends at most one check per HEALTHY_FOR_MS. A degraded answer
 * is kept only while its check runs: a load balancer sees a recovery at
 * once, and while a store is down a check waits for it (up to the backend
 * deadline), one at a time.
 */
export const HEALTHY_FOR_MS = 5_000;

export type StoreState = "ok" | "unreachable";
export interface StoreHealth {
  ok: boolean;
  stores: Record<"identity" | "firestore" | "postgres", StoreState>;
}

async function probe(check: () => Promise<unknown>, name: string): Promise<StoreState> {
  try {
    await withDeadline(name, getConfig().backendTimeoutMs, check());
    return "ok";
  } catch {
    return "unreachable";
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

async function checkStores(): Promise<StoreHealth> {
  const [identity, firestore, postgres] = await Promise.all([
    probe(identityReachable, "identity"),
    probe(() => readRole("healthz@probe.invalid"), "firestore"),
    probe(async () => (await getDb()).execute(sql`select 1`), "postgres"),
  ]);
  const stores = { identity, firestore, postgres };
  return { ok: Object.values(stores).every((state) => state === "ok"), stores };
}

let current: { check: Promise<StoreHealth>; healthyUntil: number } | undefined;

/** The stores' state: the running check's, or the last healthy one's while it is fresh. */
export function storeHealth(): Promise<StoreHealth> {
  // healthyUntil 0: the check is still running.
  if (current && (current.healthyUntil === 0 || Date.now() < current.healthyUntil)) return current.check;
  const entry: { check: Promise<StoreHealth>; healthyUntil: number } = { check: checkStores(), healthyUntil: 0 };
  current = entry;
  const settle = (healthy: boolean) => {
    if (current !== entry) return;
    // Kept a few seconds when healthy; dropped at once when not (a check
    // that failed outright included, so none stays "running" forever).
    if (healthy) entry.healthyUntil = Date.now() + HEALTHY_FOR_MS;
    else current = undefined;
  };
  entry.check.then(
    (health) => settle(health.ok),
    () => settle(false),
  );
  return entry.check;
}
